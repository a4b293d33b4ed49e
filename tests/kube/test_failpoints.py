"""Failpoints: each fails its step and the system converges once disarmed; knobs; refusals."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.utils import timezone

from core.models import Pod
from jobs.controller import reconcile_all
from jobs.models import Command, CommandAction, Job
from jobs.services import command_issue
from kube import failpoints
from kube.failpoints import Armed
from kube.models import Failpoint
from scheduler.worker import run_once
from tests.jobs.controller_kit import NOW, admit, set_pods, start, submit, tick
from tests.scheduler.factories import make_gang, make_node, make_queue

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _disarmed() -> Iterator[None]:
    failpoints.clear()
    yield
    failpoints.clear()


def bound() -> int:
    return Pod.objects.filter(node__isnull=False).count()


def test_a_failure_after_binds_are_staged_binds_nothing_then_the_gang_binds_whole() -> None:
    make_node("n1")
    make_gang("g", replicas=3)
    failpoints.arm(Armed("session.binds-staged", "error", times=1))

    first = run_once(reconcile=False, record=True)
    assert first.error.startswith("FailpointError")
    assert bound() == 0

    run_once(reconcile=False)
    assert bound() == 3


def test_a_bind_failpoint_fails_only_binds_to_its_node() -> None:
    make_node("n1", cpu=1)
    make_node("n2", cpu=1)
    make_gang("a", replicas=1)
    failpoints.arm(Armed("bind.node", "error", match="n9"))
    run_once(reconcile=False)
    assert bound() == 1
    free = "n1" if Pod.objects.filter(node__name="n2").exists() else "n2"
    make_gang("b", replicas=1)
    failpoints.arm(Armed("bind.node", "error", match=free))
    assert run_once(reconcile=False).error.startswith("FailpointError")
    assert bound() == 1


def test_a_failure_after_taking_a_command_executes_it_once_on_the_next_pass() -> None:
    job = submit()
    start(job)
    command_issue(job=job, action=CommandAction.ABORT_JOB)
    failpoints.arm(Armed("controller.command-taken", "error", times=1))

    report = reconcile_all(NOW)
    assert report.errors
    assert Command.objects.count() == 1  # its delete rolled back with the pass

    reconcile_all(NOW)
    job.refresh_from_db()
    assert job.phase == "Aborting"
    assert Command.objects.count() == 0


def test_a_failure_between_reading_a_job_and_writing_it_leaves_the_job_as_it_was() -> None:
    job = submit()
    failpoints.arm(Armed("controller.job-read", "error", times=1))
    assert reconcile_all(NOW).errors
    job.refresh_from_db()
    assert job.phase in ("", "New")
    reconcile_all(NOW)
    job.refresh_from_db()
    assert job.phase == "Pending"


def test_a_failing_pod_deletion_keeps_the_pod_until_the_controller_retries() -> None:
    job = submit()
    start(job)
    Pod.objects.filter(name="job-worker-0").update(deletion_time=NOW, reason="Evicted")
    failpoints.arm(Armed("controller.pod-delete", "error", match="job-worker-0", times=1))
    tick(job)  # the delete fails alone: the pass goes on
    assert Pod.objects.filter(name="job-worker-0").exists()
    tick(job, NOW + dt.timedelta(seconds=1))  # after the first backoff
    assert Pod.objects.get(name="job-worker-0").deletion_time is None  # recreated once
    assert Pod.objects.filter(job=job).count() == 2


def test_dropped_pod_changes_are_repaired_by_the_periodic_resync(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.VOLCANO_CONTROLLER_RESYNC = 30
    monkeypatch.setattr("jobs.controller.reconcile._last_resync", None)  # this test's clock
    job = submit()
    reconcile_all(NOW)
    admit(job)
    reconcile_all(NOW)
    reconcile_all(NOW)  # settled: pods pending
    failpoints.arm(Armed("controller.drop-pod-change", "", value=1))  # drop every one
    set_pods(job, "Running")
    reconcile_all(NOW + dt.timedelta(seconds=1))
    job.refresh_from_db()
    assert job.phase == "Pending"  # the change was dropped
    reconcile_all(NOW + dt.timedelta(seconds=31))  # the resync's full pass
    job.refresh_from_db()
    assert job.phase == "Running"


def test_the_clock_offset_expires_a_ttl_without_waiting() -> None:
    job = submit(ttlSecondsAfterFinished=3600)
    start(job)
    set_pods(job, "Succeeded", exit_code=0)
    tick(job, timezone.now())  # Completed now
    assert job.phase == "Completed"
    reconcile_all()
    assert Job.objects.filter(pk=job.pk).exists()

    failpoints.arm(Armed("clock.offset", "", value=3601))
    reconcile_all()  # the pass's clock is an hour ahead

    assert not Job.objects.filter(pk=job.pk).exists()


def test_failpoints_are_refused_in_production_settings(settings: Any) -> None:
    settings.VOLCANO_PRODUCTION = True
    with pytest.raises(ImproperlyConfigured):
        failpoints.arm(Armed("session.binds-staged", "kill"))
    with pytest.raises(CommandError):
        call_command("failpoint", "arm", "session.binds-staged", "kill")


def test_the_setting_arms_failpoints_by_name(settings: Any) -> None:
    parsed = failpoints.parse("bind.node=error@n2*1; clock.offset=:60")
    assert parsed["bind.node"] == Armed("bind.node", "error", 0.0, "n2", 1)
    assert failpoints.clock_offset() == dt.timedelta(0)
    with pytest.raises(ValueError, match="unknown failpoint"):
        failpoints.parse("nowhere=kill")
    with pytest.raises(ValueError, match="unknown action"):
        failpoints.parse("bind.node=explode")


@pytest.mark.django_db(transaction=True)  # PostgreSQL counts firings on its own connection
def test_manage_py_failpoint_rows_reach_every_process_and_fire_the_times_given(
    settings: Any,
) -> None:
    settings.VOLCANO_FAILPOINTS_ENABLED = True
    make_queue("default")  # transactional tests flush the migrations' rows
    out = StringIO()
    call_command("failpoint", "arm", "controller.job-read", "error", "--times", "1", stdout=out)
    submit()
    assert reconcile_all(NOW).errors  # reloaded at the pass's start, fired once
    assert not reconcile_all(NOW).errors
    assert Job.objects.get().phase == "Pending"
    call_command("failpoint", "disarm", "--all", stdout=out)
    assert not Failpoint.objects.exists()
    with pytest.raises(CommandError, match="unknown failpoint"):
        call_command("failpoint", "arm", "nowhere", "kill")
