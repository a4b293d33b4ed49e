"""A failing pod delete does not stall the job: it restarts, retries with backoff, converges.

Pod deletes fail at the database (the ``controller.pod-delete`` failpoint) while a RestartJob
Command is taken: the job still enters Restarting, its pods wait there as terminating, the
deletes are tried again after a backoff that doubles, a Warning event says what keeps failing
once the retry budget is spent, and the job runs again as soon as deletes go through.
"""

from __future__ import annotations

import datetime as dt

import pytest

from core.models import Event, Pod
from jobs.controller import delete_retries
from jobs.models import CommandAction, Job
from jobs.services import command_issue
from kube import failpoints
from kube.failpoints import Armed
from tests.jobs.controller_kit import NOW, admit, pods, start, submit, task, tick

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _disarmed() -> None:
    failpoints.clear()
    delete_retries.clear()


def test_a_restart_moves_on_while_deletes_fail_and_converges_once_they_succeed() -> None:
    job = submit("train", [task("worker", 2)])
    start(job)
    failpoints.arm(Armed("controller.pod-delete", "error"))
    command_issue(job=job, action=CommandAction.RESTART_JOB)

    tick(job)

    assert job.phase == "Restarting"
    assert sorted(pods(job)) == ["train-worker-0", "train-worker-1"]  # still there, terminating
    job.refresh_from_db()
    assert (job.phase, job.terminating, job.retry_count) == ("Restarting", 2, 1)

    # Tried again 1, 2, 4 and 8 s after each failure (at 1, 3, 7 and 15 s): each fails, and
    # passes in between try nothing.
    attempts = [NOW + dt.timedelta(seconds=s) for s in (0.5, 1, 2, 3, 5, 7, 9, 15)]
    for at in attempts:
        tick(job, at)
    warnings = Event.objects.filter(involved_name="train", reason="FailedDelete")
    assert warnings.count() == 1
    message = warnings.get().message
    assert message.startswith(
        "could not delete pods train-worker-0, train-worker-1 after 5 attempts"
    )
    assert "FailpointError" in message
    assert warnings.get().type == "Warning"
    assert job.phase == "Restarting"

    failpoints.clear()
    tick(job, NOW + dt.timedelta(seconds=20))  # before the next attempt (15 + 16 s): waits
    assert len(pods(job)) == 2
    tick(job, NOW + dt.timedelta(seconds=31))
    assert not pods(job)  # gone, and counted terminating for this pass
    tick(job, NOW + dt.timedelta(seconds=32))

    assert job.phase == "Pending"
    tick(job, NOW + dt.timedelta(seconds=33))  # its new PodGroup
    admit(job)
    tick(job, NOW + dt.timedelta(seconds=34))
    assert sorted(pods(job)) == ["train-worker-0", "train-worker-1"]
    assert Event.objects.filter(involved_name="train", reason="FailedDelete").count() == 1


def test_a_failed_delete_undoes_only_itself() -> None:
    job = submit("pair", [task("worker", 2)])
    start(job)
    failpoints.arm(Armed("controller.pod-delete", "error", match="pair-worker-1"))
    command_issue(job=job, action=CommandAction.ABORT_JOB)

    tick(job)

    assert sorted(pods(job)) == ["pair-worker-1"]  # the other delete went through
    assert not Pod.objects.filter(name="pair-worker-0").exists()
    assert Job.objects.get(pk=job.pk).phase == "Aborting"
