"""Lifecycle policies, retries and Commands, policy by policy (Volcano's transition table)."""

from __future__ import annotations

import datetime as dt

import pytest

from core.models import Event, PodPhase
from jobs.models import Command, CommandAction, Job
from jobs.services import command_issue
from queues.models import PodGroup, PodGroupPhase
from tests.jobs.controller_kit import (
    admit,
    event_reasons,
    evict,
    pods,
    set_pods,
    start,
    submit,
    task,
    tick,
)

pytestmark = pytest.mark.django_db

EVICTED_RESTARTS = [{"event": "PodEvicted", "action": "RestartJob"}]


def test_pod_evicted_with_restart_job_raises_retry_count_and_recreates_pods() -> None:
    job = submit(policies=EVICTED_RESTARTS)
    start(job)
    old_uids = {pod.uid for pod in pods(job).values()}
    evict(job, "job-worker-0")
    tick(job)
    assert (job.phase, job.retry_count, job.version) == ("Restarting", 1, 1)
    assert pods(job) == {}
    assert not PodGroup.objects.filter(job=job).exists()
    tick(job)
    assert job.phase == "Pending"
    tick(job)
    assert PodGroup.objects.get(job=job).phase == PodGroupPhase.PENDING
    admit(job)
    tick(job)
    fresh = pods(job)
    assert sorted(fresh) == ["job-worker-0", "job-worker-1"]
    assert not {pod.uid for pod in fresh.values()} & old_uids
    assert {pod.annotations["volcano.sh/job-version"] for pod in fresh.values()} == {"1"}
    assert {pod.annotations["volcano.sh/job-retry-count"] for pod in fresh.values()} == {"1"}
    assert "ExecuteAction" in event_reasons(job)


def test_evicted_pod_without_policy_is_recreated() -> None:
    job = submit()
    start(job)
    old = pods(job)["job-worker-0"].uid
    evict(job, "job-worker-0")
    tick(job)
    assert job.phase == "Pending"  # the new pod is pending: the gang of two is short again
    assert job.retry_count == 0
    assert pods(job)["job-worker-0"].uid != old
    assert pods(job)["job-worker-0"].phase == PodPhase.PENDING


def test_exhausted_max_retry_fails_the_job_and_keeps_the_last_failed_pod() -> None:
    job = submit(
        tasks=[task("worker", 1)],
        maxRetry=2,
        policies=[{"event": "PodFailed", "action": "RestartJob"}],
    )
    start(job)
    set_pods(job, PodPhase.FAILED, exit_code=1)
    tick(job)
    assert (job.phase, job.retry_count) == ("Restarting", 1)
    tick(job)
    tick(job)
    admit(job)
    tick(job)
    set_pods(job, PodPhase.RUNNING)
    tick(job)
    set_pods(job, PodPhase.FAILED, exit_code=1)
    tick(job)
    assert (job.phase, job.retry_count) == ("Restarting", 2)
    assert pods(job)["job-worker-0"].phase == PodPhase.FAILED  # last retry keeps it
    tick(job)
    assert job.phase == "Failed"
    assert job.reason == "MaxRetry"


def test_task_completed_with_complete_job_completes_and_stops_the_other_tasks() -> None:
    job = submit(
        tasks=[
            task("ps", 1),
            task("worker", 2, policies=[{"event": "TaskCompleted", "action": "CompleteJob"}]),
        ]
    )
    start(job)
    set_pods(job, PodPhase.SUCCEEDED, "job-worker-0", exit_code=0)
    tick(job)
    assert job.phase == "Running"  # one worker is not the whole task
    set_pods(job, PodPhase.SUCCEEDED, "job-worker-1", exit_code=0)
    tick(job)
    assert job.phase == "Completing"
    assert sorted(pods(job)) == ["job-worker-0", "job-worker-1"]  # ps killed, workers kept
    tick(job)
    assert job.phase == "Completed"


def test_pod_failed_with_abort_job_aborts_and_a_resume_command_restarts() -> None:
    job = submit(policies=[{"event": "PodFailed", "action": "AbortJob"}])
    start(job)
    set_pods(job, PodPhase.FAILED, "job-worker-0", exit_code=2)
    tick(job)
    assert job.phase == "Aborting"
    assert sorted(pods(job)) == ["job-worker-0"]  # the running pod is gone, the failed one kept
    tick(job)
    assert job.phase == "Aborted"
    assert not tick(job).changed  # Aborted waits
    command_issue(job=job, action=CommandAction.RESUME_JOB)
    tick(job)
    assert (job.phase, job.retry_count) == ("Restarting", 1)
    tick(job)
    assert job.phase == "Pending"
    tick(job)
    admit(job)
    tick(job)
    assert sorted(pods(job)) == ["job-worker-0", "job-worker-1"]


def test_exit_code_policy_restarts_only_that_task_and_keeps_the_pod_group() -> None:
    job = submit(
        tasks=[
            task("ps", 1),
            task("worker", 2, policies=[{"exitCode": 3, "action": "RestartTask"}]),
        ]
    )
    start(job)
    group = PodGroup.objects.get(job=job)
    ps_uid = pods(job)["job-ps-0"].uid
    set_pods(job, PodPhase.FAILED, "job-worker-1", exit_code=3)
    tick(job)
    assert (job.phase, job.retry_count, job.version) == ("Restarting", 1, 0)
    assert sorted(pods(job)) == ["job-ps-0"]
    assert PodGroup.objects.get(job=job).pk == group.pk
    tick(job)  # the PodGroup is still admitted, so the task's pods come back at once
    assert sorted(pods(job)) == ["job-ps-0", "job-worker-0", "job-worker-1"]
    assert pods(job)["job-ps-0"].uid == ps_uid
    assert job.phase == "Pending"


def test_exit_code_policy_ignores_other_exit_codes() -> None:
    job = submit(policies=[{"exitCode": 3, "action": "TerminateJob"}])
    start(job)
    set_pods(job, PodPhase.FAILED, "job-worker-0", exit_code=1)
    tick(job)
    assert job.phase == "Running"
    set_pods(job, PodPhase.FAILED, "job-worker-1", exit_code=3)
    tick(job)
    assert job.phase == "Terminating"
    tick(job)
    assert job.phase == "Terminated"


def test_restart_pod_kills_only_the_failed_pod() -> None:
    job = submit(policies=[{"event": "PodFailed", "action": "RestartPod"}])
    start(job)
    kept = pods(job)["job-worker-1"].uid
    set_pods(job, PodPhase.FAILED, "job-worker-0", exit_code=1)
    tick(job)
    assert job.phase == "Restarting"
    assert list(pods(job)) == ["job-worker-1"]
    tick(job)
    assert pods(job)["job-worker-1"].uid == kept
    assert "job-worker-0" in pods(job)


def test_task_policy_overrides_the_job_policy_for_its_pods() -> None:
    job = submit(
        tasks=[
            task("ps", 1),
            task("worker", 1, policies=[{"event": "PodFailed", "action": "CompleteJob"}]),
        ],
        policies=[{"event": "PodFailed", "action": "AbortJob"}],
    )
    start(job)
    set_pods(job, PodPhase.FAILED, "job-worker-0", exit_code=1)
    tick(job)
    assert job.phase == "Completing"


def test_pod_pending_policy_fires_only_after_its_timeout() -> None:
    job = submit(policies=[{"event": "PodPending", "action": "AbortJob", "timeout": "5m"}])
    tick(job)
    admit(job)
    tick(job)
    created = pods(job)["job-worker-0"].created_at
    tick(job, created + dt.timedelta(minutes=4))
    assert job.phase == "Pending"
    tick(job, created + dt.timedelta(minutes=5, seconds=1))
    assert job.phase == "Aborting"


def test_pod_group_unknown_fires_a_job_unknown_policy_even_after_a_restart() -> None:
    job = submit(policies=[{"event": "Unknown", "action": "RestartJob"}, *EVICTED_RESTARTS])
    start(job)
    evict(job, "job-worker-0")
    for _ in range(3):
        tick(job)
    admit(job)
    tick(job)
    set_pods(job, PodPhase.RUNNING)
    tick(job)
    assert (job.phase, job.version) == ("Running", 1)
    admit(job, PodGroupPhase.UNKNOWN)
    tick(job)
    assert (job.phase, job.retry_count) == ("Restarting", 2)


def test_abort_command_is_deleted_before_the_job_shows_aborting_and_taken_once() -> None:
    job = submit()
    start(job)
    command = command_issue(job=job, action=CommandAction.ABORT_JOB)
    result = tick(job)
    assert result.commands == 1
    assert job.phase == "Aborting"
    assert not Command.objects.filter(pk=command.pk).exists()
    reasons = list(
        Event.objects.filter(involved_name=job.name, reason__in=["CommandIssued", "ExecuteAction"])
        .order_by("pk")
        .values_list("reason", flat=True)
    )
    assert reasons == ["CommandIssued", "ExecuteAction"]
    assert tick(job).commands == 0
    tick(job)
    assert job.phase == "Aborted"


def test_command_for_an_earlier_job_of_the_same_name_is_dropped() -> None:
    job = submit()
    start(job)
    command = command_issue(job=job, action=CommandAction.ABORT_JOB)
    Command.objects.filter(pk=command.pk).update(target_uid="00000000-0000-0000-0000-000000000001")
    tick(job)
    assert job.phase == "Running"
    assert not Command.objects.filter(pk=command.pk).exists()
    assert not Event.objects.filter(reason="CommandIssued").exists()


def test_terminate_command_during_restarting_is_carried_out() -> None:
    job = submit(policies=EVICTED_RESTARTS)
    start(job)
    evict(job, "job-worker-0")
    tick(job)
    assert job.phase == "Restarting"
    command_issue(job=job, action=CommandAction.TERMINATE_JOB)
    tick(job)
    assert job.phase == "Terminating"
    tick(job)
    assert job.phase == "Terminated"


def test_complete_command_on_a_pending_job_completes_it_without_pods() -> None:
    job = submit()
    tick(job)
    command_issue(job=job, action=CommandAction.COMPLETE_JOB)
    tick(job)
    assert job.phase == "Completing"
    assert not PodGroup.objects.filter(job=job).exists()
    tick(job)
    assert job.phase == "Completed"


def test_resume_counts_as_a_retry_until_max_retry_fails_the_job() -> None:
    job = submit(maxRetry=1)
    start(job)
    command_issue(job=job, action=CommandAction.ABORT_JOB)
    tick(job)
    tick(job)
    assert job.phase == "Aborted"
    command_issue(job=job, action=CommandAction.RESUME_JOB)
    tick(job)
    assert (job.phase, job.retry_count) == ("Restarting", 1)
    tick(job)
    assert job.phase == "Failed"


def test_restart_command_kills_everything_and_bumps_the_version() -> None:
    job = submit()
    start(job)
    command_issue(job=job, action=CommandAction.RESTART_JOB)
    tick(job)
    assert (job.phase, job.version, job.retry_count) == ("Restarting", 1, 1)
    assert pods(job) == {}


def test_actions_on_a_completed_job_change_nothing() -> None:
    job = submit()
    start(job)
    set_pods(job, PodPhase.SUCCEEDED, exit_code=0)
    tick(job)
    tick(job)
    command_issue(job=job, action=CommandAction.RESTART_JOB)
    tick(job)
    assert (job.phase, job.retry_count) == ("Completed", 0)
    assert Job.objects.get(pk=job.pk).phase == "Completed"
