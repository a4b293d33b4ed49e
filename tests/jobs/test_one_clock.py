"""One clock: at ``VOLCANO_SIM_SPEED=10`` every timer of the cluster runs ten times faster, as
the simulated kubelet does, and a timer armed before a worker restart fires once after it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from core.models import Event, Pod, PodPhase
from jobs.controller import reconcile, reconcile_all
from jobs.models import DelayedAction, Job
from kube import clock
from kubelet.runtime import RuntimeSettings
from scheduler.retention import prune_expired
from tests.jobs.controller_kit import NOW, admit, set_pods, start, submit, task, tick

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _ten_times(settings: Any) -> None:
    settings.VOLCANO_SIM_SPEED = 10


def _restart_worker() -> None:
    """Forget what the controller keeps in memory, as a new worker process starts."""
    reconcile._restart()


def test_the_kubelet_and_the_controller_read_one_speed() -> None:
    assert clock.speed() == RuntimeSettings.from_settings().speed == 10
    assert clock.real(300) == dt.timedelta(seconds=30)


def test_a_pending_timeout_armed_before_a_restart_fires_once_on_the_cluster_clock() -> None:
    job = submit(
        "stuck", [task("worker", 1)],
        policies=[{"event": "PodPending", "action": "RestartJob", "timeout": "300s"}],
    )  # fmt: skip
    tick(job)
    admit(job)
    tick(job)  # the pod is created Pending at NOW
    tick(job, NOW + dt.timedelta(seconds=1))  # and seen Pending: the timer is armed
    assert DelayedAction.objects.filter(job=job, fired_at__isnull=True).count() == 1
    announced = Event.objects.filter(involved_name="stuck", reason="ExecuteAction")
    assert [e.message for e in announced] == ["Execute action RestartJob after 5m0s"]

    since = Pod.objects.get(name="stuck-worker-0").created_at  # the timer counts from here

    _restart_worker()
    reconcile_all(since + dt.timedelta(seconds=29))
    assert Job.objects.get(pk=job.pk).phase == "Pending"
    for seconds in (31, 40, 60):
        reconcile_all(since + dt.timedelta(seconds=seconds))

    job.refresh_from_db()
    assert job.retry_count == 1  # fired once, at 30 s of wall time, not once per pass
    restarts = Event.objects.filter(involved_name="stuck", reason="Restarting")
    assert [e.message for e in restarts] == [
        "Job phase Pending -> Restarting: RestartJob (PodPending of stuck-worker-0 after its "
        "timeout)"
    ]
    assert not DelayedAction.objects.filter(job=job, fired_at__isnull=True).exists()


def test_ttl_after_finished_counts_the_cluster_s_seconds() -> None:
    job = submit("done", [task("worker", 1)], ttlSecondsAfterFinished=100)
    start(job)
    set_pods(job, PodPhase.SUCCEEDED, exit_code=0)
    tick(job)
    assert job.phase == "Completed"

    reconcile_all(NOW + dt.timedelta(seconds=9))
    assert Job.objects.filter(pk=job.pk).exists()
    reconcile_all(NOW + dt.timedelta(seconds=11))  # 110 simulated seconds
    assert not Job.objects.filter(pk=job.pk).exists()


def test_an_event_lives_its_ttl_on_the_cluster_clock(settings: Any) -> None:
    settings.VOLCANO_EVENT_TTL = 3600
    job = submit("noted", [task("worker", 1)])
    tick(job)
    seen = Event.objects.filter(involved_name="noted").order_by("-last_timestamp").first()
    assert seen is not None
    last = seen.last_timestamp

    assert prune_expired(last + dt.timedelta(seconds=359)).events == 0
    assert prune_expired(last + dt.timedelta(seconds=361)).events >= 1
