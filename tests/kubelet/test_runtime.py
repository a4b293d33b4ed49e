"""The simulated kubelet: bound pods start, run as long as they ask, end with their exit code."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.utils import timezone

from core.models import Event, Node, Pod
from kubelet.runtime import RuntimeSettings, parse_duration, pod_duration, tick
from scheduler import services
from tests.scheduler.factories import make_gang, make_node

FAST = RuntimeSettings(start_delay=1.0, default_duration=30.0, speed=1.0)


@dataclass(frozen=True)
class DurationCase:
    name: str
    annotations: dict[str, str]
    command: list[str]
    seconds: float


DURATIONS = [
    DurationCase("annotation wins", {"volcano.sh/sim-duration": "90s"}, ["sleep", "10m"], 90),
    DurationCase("sleep argument", {}, ["sleep", "10m"], 600),
    DurationCase("sleep inside a shell line", {}, ["sh", "-c", "echo hi; sleep 45"], 45),
    DurationCase("compound duration", {"volcano.sh/sim-duration": "1h30m"}, [], 5400),
    DurationCase("unreadable annotation falls back", {"volcano.sh/sim-duration": "soon"}, [], 30),
    DurationCase("no hint: the default", {}, ["python", "train.py"], 30),
]


@pytest.mark.parametrize("case", DURATIONS, ids=lambda c: c.name)
def test_a_pod_runs_for_the_duration_it_asks(case: DurationCase) -> None:
    spec = {"containers": [{"name": "c", "command": case.command}]}
    assert pod_duration(case.annotations, spec, 30.0) == case.seconds


def test_durations_read_like_kubernetes_ones() -> None:
    assert parse_duration("500ms") == 0.5
    assert parse_duration("2") == 2.0
    assert parse_duration("10x") is None


def _bound(
    name: str, *, annotations: dict[str, str] | None = None, restart_policy: str = ""
) -> Pod:
    node = (
        Node.objects.get(name="n1") if Node.objects.filter(name="n1").exists() else make_node("n1")
    )
    _, (pod,) = make_gang(name, replicas=1, annotations=annotations)
    spec = dict(pod.spec)
    if restart_policy:
        spec["restartPolicy"] = restart_policy
    Pod.objects.filter(pk=pod.pk).update(node=node, task_status="Bound", spec=spec)
    pod.refresh_from_db()
    return pod


@pytest.mark.django_db
def test_a_bound_pod_starts_then_succeeds_after_its_duration() -> None:
    pod = _bound("job", annotations={"volcano.sh/sim-duration": "10s"})
    t0 = timezone.now()

    tick(now=t0, config=FAST)
    pod.refresh_from_db()
    assert (pod.phase, pod.start_time) == ("Pending", t0)

    tick(now=t0 + timedelta(seconds=1), config=FAST)
    pod.refresh_from_db()
    assert pod.phase == "Running"

    tick(now=t0 + timedelta(seconds=10), config=FAST)
    pod.refresh_from_db()
    assert pod.phase == "Running"

    tick(now=t0 + timedelta(seconds=11), config=FAST)
    pod.refresh_from_db()
    assert (pod.phase, pod.exit_code, pod.reason) == ("Succeeded", 0, "Completed")


@pytest.mark.django_db
def test_a_pod_asking_for_an_exit_code_fails_with_it_under_restart_policy_never() -> None:
    pod = _bound(
        "bad",
        annotations={"volcano.sh/sim-duration": "1s", "volcano.sh/sim-exit-code": "3"},
        restart_policy="Never",
    )
    t0 = timezone.now()
    for step in (0, 1, 5):
        tick(now=t0 + timedelta(seconds=step), config=FAST)
    pod.refresh_from_db()
    assert (pod.phase, pod.exit_code) == ("Failed", 3)


@pytest.mark.django_db
def test_the_clock_speed_factor_shortens_every_duration() -> None:
    pod = _bound("fast", annotations={"volcano.sh/sim-duration": "10m"})
    fast = RuntimeSettings(start_delay=1.0, default_duration=30.0, speed=60.0)
    t0 = timezone.now()
    tick(now=t0, config=fast)
    tick(now=t0 + timedelta(seconds=1), config=fast)
    tick(now=t0 + timedelta(seconds=11), config=fast)  # 1 s + 600 s, sixty times faster
    pod.refresh_from_db()
    assert pod.phase == "Succeeded"


@pytest.mark.django_db
def test_an_evicted_pod_stops_and_keeps_its_eviction_reason() -> None:
    pod = _bound("victim")
    t0 = timezone.now()
    tick(now=t0, config=FAST)
    tick(now=t0 + timedelta(seconds=1), config=FAST)

    assert services.pod_evict(pod=pod, now=t0 + timedelta(seconds=2))
    tick(now=t0 + timedelta(seconds=4), config=FAST)

    pod.refresh_from_db()
    assert (pod.phase, pod.reason) == ("Failed", "Evicted")
    assert pod.deletion_time is not None
    assert Event.objects.filter(involved_name=pod.name, reason="Evict").exists()


@pytest.mark.django_db
def test_a_node_taken_down_fails_its_pods_and_comes_back_empty() -> None:
    pod = _bound("lost")
    node = Node.objects.get(name="n1")

    assert services.node_down(node=node) == 1

    pod.refresh_from_db()
    assert (pod.phase, pod.reason) == ("Failed", "NodeNotReady")
    assert node.ready is False
    services.node_up(node=node)
    assert node.ready is True


@pytest.mark.django_db
def test_an_injected_failure_ends_a_running_pod_with_its_exit_code() -> None:
    pod = _bound("crash")
    assert services.pod_fail(pod=pod, exit_code=137)
    pod.refresh_from_db()
    assert (pod.phase, pod.exit_code) == ("Failed", 137)
    assert not services.pod_fail(pod=pod)  # already ended: nothing to fail


@pytest.mark.django_db
def test_cordon_marks_the_node_unschedulable_and_bumps_its_version() -> None:
    node = make_node("n2")
    version = node.resource_version
    services.node_cordon(node=node)
    assert node.unschedulable is True
    assert node.resource_version == version + 1
