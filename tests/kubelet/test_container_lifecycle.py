"""The simulated kubelet's restarts and grace periods: CrashLoopBackOff, SIGTERM, SIGKILL."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from core.container_lifecycle import (
    back_off_seconds,
    grace_seconds,
    ignores_sigterm,
    restarts_on,
)
from core.manifests.pod_status import container_statuses, pod_conditions
from core.models import Event, Pod
from core.pod_deletion import pod_delete_gracefully
from kubelet.runtime import RuntimeSettings, tick
from scheduler.worker import run_once
from tests.jobs.controller_kit import submit
from tests.scheduler.factories import make_gang, make_node

FAST = RuntimeSettings(start_delay=1.0, default_duration=30.0, speed=1.0)
CRASHING = {"volcano.sh/sim-duration": "5s", "volcano.sh/sim-exit-code": "1"}


@dataclass(frozen=True)
class BackOffCase:
    name: str
    previous: float
    ran: float
    delay: float


BACK_OFFS = [
    BackOffCase("first crash waits ten seconds", 0, 5, 10),
    BackOffCase("each crash doubles the wait", 10, 5, 20),
    BackOffCase("doubling again", 40, 5, 80),
    BackOffCase("capped at five minutes", 160, 5, 300),
    BackOffCase("stays at the cap", 300, 5, 300),
    BackOffCase("ten minutes running resets it", 300, 600, 10),
]


@pytest.mark.parametrize("case", BACK_OFFS, ids=lambda c: c.name)
def test_crash_loop_back_off_follows_the_kubelets_schedule(case: BackOffCase) -> None:
    assert back_off_seconds(case.previous, case.ran) == case.delay


def test_restart_policy_decides_whether_a_failing_container_restarts() -> None:
    assert restarts_on({"restartPolicy": "OnFailure"}, 1)
    assert restarts_on({}, 1)  # Kubernetes' default is Always
    assert not restarts_on({"restartPolicy": "Never"}, 1)
    assert not restarts_on({"restartPolicy": "OnFailure"}, 0)  # a success ends the pod


def test_grace_period_comes_from_the_delete_then_the_pod_then_thirty_seconds() -> None:
    assert grace_seconds({"terminationGracePeriodSeconds": 60}, 5) == 5
    assert grace_seconds({"terminationGracePeriodSeconds": 60}, None) == 60
    assert grace_seconds({}, None) == 30
    assert ignores_sigterm({"volcano.sh/sim-ignore-sigterm": "true"})
    assert not ignores_sigterm({"volcano.sh/sim-ignore-sigterm": "false"})
    assert not ignores_sigterm({})


def _running(
    name: str,
    *,
    annotations: dict[str, str] | None = None,
    spec: dict[str, Any] | None = None,
    config: RuntimeSettings = FAST,
) -> tuple[Pod, datetime]:
    """Return a pod the kubelet started (Running since ``t0 + 1 s``) and ``t0``."""
    node = make_node(f"{name}-node")
    spec = spec or {"containers": [{"name": "main", "image": "busybox"}]}
    _, (pod,) = make_gang(name, replicas=1, annotations=annotations, spec=spec)
    Pod.objects.filter(pk=pod.pk).update(node=node, task_status="Bound")
    t0 = timezone.now()
    tick(now=t0, config=config)
    tick(now=t0 + timedelta(seconds=1), config=config)
    pod.refresh_from_db()
    assert pod.phase == "Running"
    return pod, t0


def _state(pod: Pod) -> dict[str, Any]:
    pod.refresh_from_db()
    (status,) = container_statuses(pod)
    return status


@pytest.mark.django_db
def test_a_failing_container_restarts_in_place_with_crash_loop_back_off() -> None:
    spec = {"restartPolicy": "OnFailure", "containers": [{"name": "main", "image": "busybox"}]}
    pod, t0 = _running("crashy", annotations=CRASHING, spec=spec)
    uid = pod.uid

    tick(now=t0 + timedelta(seconds=6), config=FAST)  # ran its 5 s, exits 1

    status = _state(pod)
    assert (pod.phase, pod.uid, pod.restart_count) == ("Running", uid, 1)
    assert status["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert (status["ready"], status["started"], status["restartCount"]) == (False, False, 1)
    assert status["lastState"]["terminated"]["exitCode"] == 1
    ready = {c["type"]: c for c in pod_conditions(pod)}["Ready"]
    assert (ready["status"], ready["reason"]) == ("False", "ContainersNotReady")

    tick(now=t0 + timedelta(seconds=15), config=FAST)  # 9 s into a 10 s back-off
    assert "waiting" in _state(pod)["state"]
    tick(now=t0 + timedelta(seconds=16), config=FAST)  # back-off over: runs again
    status = _state(pod)
    assert status["state"]["running"]["startedAt"]
    assert (status["ready"], pod.restart_count) == (True, 1)


@pytest.mark.django_db
def test_each_crash_records_the_kubelets_back_off_warning_on_the_pod() -> None:
    spec = {"restartPolicy": "OnFailure", "containers": [{"name": "main", "image": "busybox"}]}
    pod, t0 = _running("crashy", annotations=CRASHING, spec=spec)
    _running("calm", spec=spec)  # a pod that does not crash gets no event

    tick(now=t0 + timedelta(seconds=6), config=FAST)  # crashy exits 1; calm runs on

    (event,) = Event.objects.filter(reason="BackOff")
    assert (event.type, event.source, event.involved_kind) == ("Warning", "kubelet", "Pod")
    assert (event.involved_name, event.involved_uid) == (pod.name, pod.uid)
    assert event.message == (
        f"Back-off restarting failed container main in pod {pod.name}_{pod.namespace}"
    )

    tick(now=t0 + timedelta(seconds=16), config=FAST)  # back-off over: runs again
    tick(now=t0 + timedelta(seconds=22), config=FAST)  # and crashes a second time

    (event,) = Event.objects.filter(reason="BackOff")  # counted, as kubectl shows "(x2 over 16s)"
    assert (event.involved_name, event.count) == (pod.name, 2)
    assert event.last_timestamp > event.first_timestamp


@pytest.mark.django_db
def test_restart_count_grows_and_back_off_doubles_on_the_sim_clock() -> None:
    spec = {"restartPolicy": "Always", "containers": [{"name": "main", "image": "busybox"}]}
    # Sixty times faster: each 5 s run and each back-off take a sixtieth of their time.
    fast = RuntimeSettings(start_delay=1.0, default_duration=30.0, speed=60.0)
    pod, t0 = _running("loop", annotations=CRASHING, spec=spec, config=fast)
    at, waits = t0 + timedelta(seconds=1), []
    for _ in range(4):
        at += timedelta(seconds=5 / 60)
        tick(now=at, config=fast)  # crash
        pod.refresh_from_db()
        assert pod.back_off_until is not None
        waits.append(round((pod.back_off_until - at).total_seconds() * 60))
        at = pod.back_off_until
        tick(now=at, config=fast)  # restart
    pod.refresh_from_db()
    assert waits == [10, 20, 40, 80]
    assert (pod.restart_count, pod.phase) == (4, "Running")


@pytest.mark.django_db
def test_under_restart_policy_never_a_failing_container_fails_the_pod() -> None:
    spec = {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}
    pod, t0 = _running("once", annotations=CRASHING, spec=spec)
    tick(now=t0 + timedelta(seconds=6), config=FAST)
    status = _state(pod)
    assert (pod.phase, pod.exit_code, pod.restart_count) == ("Failed", 1, 0)
    assert status["state"]["terminated"]["reason"] == "Error"


@pytest.mark.django_db
def test_a_deleted_pod_runs_until_its_container_exits_on_sigterm() -> None:
    pod, _t0 = _running("polite")
    assert pod_delete_gracefully(pod, None)
    deleted = pod.deletion_time
    assert deleted is not None

    pod.refresh_from_db()
    assert (pod.phase, pod.deletion_grace_seconds) == ("Running", 30)
    result = tick(now=deleted + timedelta(seconds=1), config=FAST)  # the step after SIGTERM
    assert result.stopped == 1
    assert not Pod.objects.filter(pk=pod.pk).exists()  # the kubelet's final delete


@pytest.mark.django_db
def test_a_deleted_pod_whose_container_ends_by_itself_in_its_grace_period_goes() -> None:
    pod, _t0 = _running("stubborn", annotations={"volcano.sh/sim-ignore-sigterm": "true"})
    assert pod_delete_gracefully(pod, None)
    deleted = pod.deletion_time
    assert deleted is not None
    # its work ends on its own before the grace period runs out (as a finishing sleep does)
    Pod.objects.filter(pk=pod.pk).update(phase="Succeeded", finish_time=deleted)

    tick(now=deleted + timedelta(seconds=1), config=FAST)

    assert not Pod.objects.filter(pk=pod.pk).exists()  # not left terminating for ever


@pytest.mark.django_db
def test_a_jobs_deleted_pod_stops_with_sigterms_exit_code_and_waits_for_its_controller() -> None:
    pod, _t0 = _running("owned")
    Pod.objects.filter(pk=pod.pk).update(job=submit(name="owner"))
    pod.refresh_from_db()
    assert pod_delete_gracefully(pod, None)
    assert pod.deletion_time is not None

    tick(now=pod.deletion_time + timedelta(seconds=1), config=FAST)

    pod.refresh_from_db()
    assert (pod.phase, pod.exit_code) == ("Failed", 143)  # its controller removes the row


@pytest.mark.django_db
def test_a_container_ignoring_sigterm_runs_out_its_grace_period() -> None:
    spec = {
        "terminationGracePeriodSeconds": 20,
        "containers": [{"name": "main", "image": "busybox"}],
    }
    pod, _t0 = _running(
        "stubborn", annotations={"volcano.sh/sim-ignore-sigterm": "true"}, spec=spec
    )
    assert pod_delete_gracefully(pod, None)
    deleted = pod.deletion_time
    assert deleted is not None

    Pod.objects.filter(pk=pod.pk).update(job=submit(name="owner"))  # keeps the stopped row

    tick(now=deleted + timedelta(seconds=19), config=FAST)
    pod.refresh_from_db()
    assert pod.phase == "Running"
    tick(now=deleted + timedelta(seconds=20), config=FAST)
    pod.refresh_from_db()
    assert (pod.phase, pod.exit_code) == ("Failed", 137)  # SIGKILL


@pytest.mark.django_db
def test_a_pod_not_on_a_node_is_deleted_at_once() -> None:
    _, (pod,) = make_gang("unbound", replicas=1)
    assert not pod_delete_gracefully(pod, None)


@pytest.mark.django_db
def test_a_terminating_pod_keeps_its_node_until_it_exits() -> None:
    """As Volcano's cache holds a pod with a deletionTimestamp as Releasing: its resources
    stay taken, so a pod that needs them waits (pipelined) and binds once it is gone."""
    spec = {
        "terminationGracePeriodSeconds": 30,
        "containers": [{"name": "main", "image": "busybox"}],
    }
    node = make_node("only", cpu=2)
    _, (old,) = make_gang("old", replicas=1, cpu=2, spec=spec,
                          annotations={"volcano.sh/sim-ignore-sigterm": "true"})  # fmt: skip
    Pod.objects.filter(pk=old.pk).update(node=node, task_status="Bound")
    t0 = timezone.now()
    tick(now=t0, config=FAST)
    tick(now=t0 + timedelta(seconds=1), config=FAST)
    old.refresh_from_db()
    assert pod_delete_gracefully(old, None)
    _, (new,) = make_gang("new", replicas=1, cpu=2)

    run_once(reconcile=False)

    new.refresh_from_db()
    assert new.node_id is None
    assert new.nominated_node_name == "only"  # pipelined onto what the old pod releases
    assert old.deletion_time is not None
    tick(now=old.deletion_time + timedelta(seconds=30), config=FAST)  # SIGKILL
    run_once(reconcile=False)
    new.refresh_from_db()
    assert new.node_id == node.pk
