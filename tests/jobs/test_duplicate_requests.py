"""Duplicate and stale controller requests converge once, as Volcano's controller ignores them.

The same pod event seen by two passes (a notification delivered twice, a resync after it), a
pod event from an older job version, and a Command for another incarnation of the job's name
each lead to at most one action.
"""

from __future__ import annotations

import pytest

from core.models import Pod, PodPhase
from jobs.models import Command, CommandAction, Job
from jobs.services import command_issue
from tests.jobs.controller_kit import admit, pods, set_pods, start, submit, task, tick

pytestmark = pytest.mark.django_db

RESTART_ON_FAILURE = [{"event": "PodFailed", "action": "RestartJob"}]


def test_the_same_pod_failure_seen_twice_restarts_the_job_once() -> None:
    job = submit(tasks=[task("worker", 2)], policies=RESTART_ON_FAILURE, maxRetry=5)
    start(job)
    set_pods(job, PodPhase.FAILED, "job-worker-0", exit_code=1)

    tick(job)
    tick(job)  # the same failed pod observed again
    tick(job)

    assert job.retry_count == 1


def test_a_failure_from_an_older_job_version_is_ignored() -> None:
    job = submit(tasks=[task("worker", 2)], policies=RESTART_ON_FAILURE, maxRetry=5)
    start(job)
    set_pods(job, PodPhase.FAILED, "job-worker-0", exit_code=1)
    tick(job)
    tick(job)  # restarted: version 1, pods gone
    tick(job)  # the PodGroup is made again
    admit(job)
    tick(job)
    set_pods(job, PodPhase.RUNNING)
    tick(job)
    assert (job.phase, job.retry_count) == ("Running", 1)
    version = job.version
    stale = pods(job)["job-worker-1"]
    stale.annotations = {**stale.annotations, "volcano.sh/job-version": str(version - 1)}
    stale.phase, stale.exit_code = PodPhase.FAILED, 1
    stale.save()

    tick(job)
    tick(job)

    assert (job.retry_count, job.version) == (1, version)


def test_a_command_for_another_incarnation_is_consumed_and_ignored() -> None:
    job = submit()
    start(job)
    command = command_issue(job=job, action=CommandAction.ABORT_JOB)
    Command.objects.filter(pk=command.pk).update(target_uid="00000000-0000-0000-0000-000000000009")

    tick(job)
    tick(job)

    assert Job.objects.get(pk=job.pk).phase == "Running"
    assert not Command.objects.exists()
    assert Pod.objects.filter(job=job).count() == 2
