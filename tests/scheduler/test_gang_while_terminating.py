"""A gang keeps its PodGroup Running while a member runs out its grace period (Volcano's
``getPodGroupPhase`` and gang's ``shouldSkipUnschedulableForReleasing``), through the whole
stack: the controller, the scheduling cycle and the simulated kubelet."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from core.models import Pod
from core.pod_deletion import pod_delete_gracefully
from kubelet.runtime import RuntimeSettings
from kubelet.runtime import tick as kubelet_tick
from queues.models import PodGroup
from scheduler.defaults import DEFAULT_SCHEDULER_CONF
from scheduler.worker import run_once
from tests.jobs.controller_kit import submit, task
from tests.scheduler.factories import make_node, use_conf

pytestmark = pytest.mark.django_db

# Containers take 5 s to stop after SIGTERM: the grace period a member runs out.
SLOW_STOP = RuntimeSettings(start_delay=5.0, default_duration=3600.0, speed=1.0)


def test_a_two_pod_gang_stays_running_while_one_member_terminates() -> None:
    use_conf(DEFAULT_SCHEDULER_CONF)
    make_node("n1", cpu=8)
    submit("gang", [task("w", 2)], minAvailable=2)
    now = timezone.now()
    for _ in range(12):
        now += dt.timedelta(seconds=1)
        run_once(now=now)
        kubelet_tick(now=now, config=SLOW_STOP)
    assert PodGroup.objects.get().phase == "Running"

    member = Pod.objects.get(name="gang-w-0")
    assert pod_delete_gracefully(member, None)
    Pod.objects.filter(pk=member.pk).update(deletion_time=now)  # on the test's clock
    phases = []
    for _ in range(3):
        now += dt.timedelta(seconds=1)
        run_once(now=now)
        kubelet_tick(now=now, config=SLOW_STOP)
        terminating = Pod.objects.get(name="gang-w-0")
        assert terminating.deletion_time is not None
        assert terminating.phase == "Running"  # still running out its grace period
        phases.append(PodGroup.objects.get().phase)

    assert phases == ["Running", "Running", "Running"]
