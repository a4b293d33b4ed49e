"""``TaskFailed``: a task whose live pods restarted ``maxRetry`` times (Volcano's
``jobCache.TaskFailed``, raised from ``updatePod`` for Pending and Running pods)."""

from __future__ import annotations

import pytest

from core.models import Event, Pod, PodPhase
from jobs.models import JobPhase
from tests.jobs.controller_kit import event_reasons, pods, start, submit, task, tick

pytestmark = pytest.mark.django_db

TERMINATE_ON_TASK_FAILED = [{"event": "TaskFailed", "action": "TerminateJob"}]


def restarted(job_pk: int, name: str, count: int) -> None:
    """Play the kubelet: the pod's container crashed ``count`` times, the pod still Running."""
    Pod.objects.filter(job_id=job_pk, name=name).update(restart_count=count)


def test_restarts_below_max_retry_raise_nothing_and_at_max_retry_terminate_the_job() -> None:
    job = submit(tasks=[task("worker", 2, maxRetry=3)], policies=TERMINATE_ON_TASK_FAILED)
    start(job)
    restarted(job.pk, "job-worker-0", 2)
    tick(job)
    assert job.phase == JobPhase.RUNNING

    restarted(job.pk, "job-worker-1", 1)  # 2 + 1: the task's pods together reach maxRetry
    tick(job)

    assert job.phase == JobPhase.TERMINATING
    message = Event.objects.get(involved_name=job.name, reason="ExecuteAction").message
    assert message == (
        "Start to execute action TerminateJob (task worker restarted 3 times, maxRetry 3)"
    )
    for pod in pods(job).values():  # the kubelet stops the killed pods
        Pod.objects.filter(pk=pod.pk).update(phase=PodPhase.FAILED)
    tick(job)
    assert job.phase == JobPhase.TERMINATED
    assert "ExecuteAction" in event_reasons(job)


def test_the_tasks_max_retry_counts_not_the_jobs() -> None:
    job = submit(
        tasks=[task("worker", 1, maxRetry=5)], maxRetry=1, policies=TERMINATE_ON_TASK_FAILED
    )
    start(job)
    restarted(job.pk, "job-worker-0", 4)
    tick(job)
    assert job.phase == JobPhase.RUNNING
    restarted(job.pk, "job-worker-0", 5)
    tick(job)
    assert job.phase == JobPhase.TERMINATING


def test_an_unset_task_max_retry_is_three_and_finished_pods_do_not_count() -> None:
    job = submit(tasks=[task("worker", 2)], policies=TERMINATE_ON_TASK_FAILED)
    start(job)
    Pod.objects.filter(job=job, name="job-worker-0").update(
        restart_count=7, phase=PodPhase.FAILED, exit_code=1
    )
    restarted(job.pk, "job-worker-1", 2)
    tick(job)
    assert job.phase != JobPhase.TERMINATING

    restarted(job.pk, "job-worker-1", 3)
    tick(job)
    assert job.phase == JobPhase.TERMINATING


def test_task_failed_without_a_policy_leaves_the_job_running() -> None:
    job = submit(tasks=[task("worker", 1)])
    start(job)
    restarted(job.pk, "job-worker-0", 3)
    tick(job)
    assert job.phase == JobPhase.RUNNING
