"""The job controller meets the kubelet's pod status: dependsOn waits for ready pods, and a
pod deleted with a grace period is terminating (counted so, its row kept) until it exits."""

from __future__ import annotations

import datetime as dt

import pytest

from core.models import Node, Pod, PodPhase
from core.pod_deletion import pod_delete_gracefully
from tests.jobs.controller_kit import NOW, admit, pods, start, submit, task, tick

pytestmark = pytest.mark.django_db


def _crash_looping(job_pod: Pod) -> None:
    """Play the kubelet: the pod's container crashed and waits in CrashLoopBackOff."""
    Pod.objects.filter(pk=job_pod.pk).update(
        phase=PodPhase.RUNNING,
        running_since=None,
        back_off_until=NOW + dt.timedelta(seconds=10),
        restart_count=1,
    )


def _ready(*names: str) -> None:
    Pod.objects.filter(name__in=names).update(
        phase=PodPhase.RUNNING, running_since=NOW, back_off_until=None
    )


def test_depends_on_waits_until_the_prerequisites_containers_are_ready() -> None:
    job = submit(
        tasks=[
            task("master", 2, minAvailable=2),
            task("worker", 1, dependsOn={"name": ["master"]}),
        ],
        minAvailable=1,
    )
    tick(job)
    admit(job)
    tick(job)
    master = pods(job)
    assert sorted(master) == ["job-master-0", "job-master-1"]

    _ready("job-master-0")
    _crash_looping(master["job-master-1"])  # Running, but its container is not ready
    tick(job)
    assert sorted(pods(job)) == ["job-master-0", "job-master-1"]

    _ready("job-master-1")
    tick(job)
    assert sorted(pods(job)) == ["job-master-0", "job-master-1", "job-worker-0"]


def test_depends_on_counts_against_the_prerequisites_min_available() -> None:
    job = submit(
        tasks=[
            task("master", 3, minAvailable=1),
            task("worker", 1, dependsOn={"name": ["master"]}),
        ],
        minAvailable=1,
    )
    tick(job)
    admit(job)
    tick(job)

    _ready("job-master-2")  # one of three is ready: the task's minAvailable
    tick(job)

    assert "job-worker-0" in pods(job)


def test_a_finished_prerequisite_counts_as_ready() -> None:
    job = submit(
        tasks=[task("prep", 1), task("train", 1, dependsOn={"name": ["prep"]})], minAvailable=1
    )
    tick(job)
    admit(job)
    tick(job)
    Pod.objects.filter(name="job-prep-0").update(phase=PodPhase.SUCCEEDED, exit_code=0)

    tick(job)

    assert "job-train-0" in pods(job)


def test_a_gracefully_deleted_pod_is_terminating_until_the_kubelet_stops_it() -> None:
    job = submit(tasks=[task("worker", 2)], minAvailable=2)
    start(job)
    node = Node.objects.create(name="n1")
    Pod.objects.filter(job=job).update(node=node)
    victim = Pod.objects.get(name="job-worker-0")
    assert pod_delete_gracefully(victim, None)

    tick(job)

    assert "job-worker-0" in pods(job)  # its row stays while it runs out
    assert (job.running, job.terminating) == (1, 1)
    assert job.phase == "Running"  # no policy: PodEvicted resolves to SyncJob

    Pod.objects.filter(pk=victim.pk).update(phase=PodPhase.FAILED, exit_code=143)
    tick(job)
    tick(job)

    recreated = pods(job)["job-worker-0"]  # removed once stopped, then created afresh
    assert recreated.pk != victim.pk
    assert recreated.deletion_time is None
