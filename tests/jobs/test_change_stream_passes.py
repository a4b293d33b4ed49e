"""A pass reconciles the jobs whose objects changed since the last one, and misses none."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.models import Event, Pod, PodPhase
from jobs.controller import reconcile, reconcile_all
from jobs.models import Job
from kube.changes import prune_changes, record_rows
from kube.models import ChangeEvent
from queues.models import PodGroup
from tests.jobs.controller_kit import NOW, set_pods, start, submit

pytestmark = pytest.mark.django_db

LATER = NOW + dt.timedelta(seconds=1)


@pytest.fixture(autouse=True)
def _fresh_process() -> None:
    reconcile._restart()


def _settled(*names: str) -> list[Job]:
    """Submit the jobs, take each to Running and settle them (a pass that reconciles none)."""
    jobs = [submit(name) for name in names]
    for job in jobs:
        start(job)
    reconcile_all(NOW)  # the process's first pass: full
    reconcile_all(NOW)  # the jobs it changed are looked at once more
    assert reconcile_all(NOW).jobs == 0
    return jobs


def test_a_job_whose_pod_changed_is_reconciled_in_the_next_pass_and_the_others_are_not() -> None:
    first, _ = _settled("first", "second")
    set_pods(first, PodPhase.SUCCEEDED, "first-worker-0", exit_code=0)  # the kubelet's write

    report = reconcile_all(LATER)

    assert (report.jobs, report.skipped) == (1, 1)
    assert report.changed_jobs == ["default/first"]


def test_a_set_wise_pod_write_recorded_on_the_stream_wakes_its_job() -> None:
    job, _ = _settled("first", "second")
    pks = list(Pod.objects.filter(job=job).values_list("pk", flat=True))
    Pod.objects.filter(pk__in=pks).update(phase=PodPhase.FAILED, exit_code=1)
    record_rows(Pod, pks)

    report = reconcile_all(LATER)

    assert report.changed_jobs == ["default/first"]
    job.refresh_from_db()
    assert job.phase != "Running"


def test_a_pod_deleted_by_someone_else_wakes_its_job_which_creates_it_again() -> None:
    _settled("first", "second")
    Pod.objects.get(name="first-worker-1").delete()  # the row is gone: found by its owner

    report = reconcile_all(LATER)

    assert report.jobs == 1
    assert "default/first" in report.changed_jobs
    assert Pod.objects.filter(name="first-worker-1").exists()


def test_a_pod_group_changed_wakes_its_job() -> None:
    job, _ = _settled("first", "second")
    group = PodGroup.objects.get(job=job)
    group.phase = "Unknown"
    group.save()

    assert reconcile_all(LATER).jobs == 1


def test_a_job_submitted_between_passes_is_reconciled_in_the_next_one() -> None:
    _settled("first")
    submit("late")

    report = reconcile_all(LATER)

    assert report.transitions == {"default/late": ["New->Pending"]}


def test_a_pass_after_the_stream_was_pruned_past_its_mark_looks_at_every_job() -> None:
    _settled("first", "second")
    ChangeEvent.objects.update(created_at=NOW - dt.timedelta(hours=1))
    submit("late")  # the newest event stays; every one before it goes
    prune_changes(keep_seconds=60)

    report = reconcile_all(LATER)

    assert (report.jobs, report.skipped) == (3, 0)


def test_a_pass_with_nothing_to_do_reads_as_many_rows_for_five_jobs_as_for_one() -> None:
    def idle_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            report = reconcile_all(LATER)
        assert report.jobs == 0
        return len(queries)

    _settled("a")
    one = idle_queries()
    _settled("b", "c", "d", "e")
    assert idle_queries() == one


def test_a_waiting_pod_group_is_warned_about_once_however_often_its_job_is_reconciled() -> None:
    job = submit("waits")
    reconcile_all(NOW)
    group = PodGroup.objects.get(job=job)
    group.conditions = [
        {"type": "Unschedulable", "status": "True", "message": "0/1 nodes are available",
         "lastTransitionTime": NOW.isoformat()}
    ]  # fmt: skip
    for step in range(3):  # each save wakes the job: three passes read the warnings first
        group.save()
        reconcile_all(NOW + dt.timedelta(seconds=step + 1))

    warned = Event.objects.filter(involved_name="waits", reason="PodGroupPending")
    assert [(e.count, e.message) for e in warned] == [
        (1, "PodGroup default:waits unschedulable, reason: 0/1 nodes are available")
    ]
