"""A pass over many jobs reads their rows in a few queries, and never acts on stale ones."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.models import Event, PodPhase
from jobs.controller import reconcile, reconcile_all, reconcile_job
from jobs.models import Job, TaskSpec
from tests.jobs.controller_kit import NOW, admit, pods, set_pods, submit, task, tick

pytestmark = pytest.mark.django_db


def test_tasks_read_before_the_job_changed_are_read_again() -> None:
    job = submit(tasks=[task("worker", 2)])
    tick(job)
    admit(job)
    stale = (job.resource_version - 1, [TaskSpec(job=job, index=0, name="worker", replicas=0)])

    reconcile_job(job.pk, NOW, tasks=stale)

    assert sorted(pods(job)) == ["job-worker-0", "job-worker-1"]


def test_tasks_read_with_the_current_job_are_used() -> None:
    job = submit(tasks=[task("worker", 2)])
    tick(job)
    admit(job)
    fresh = list(TaskSpec.objects.filter(job=job))

    with CaptureQueriesContext(connection) as queries:
        reconcile_job(job.pk, NOW, tasks=(job.resource_version, fresh), commands=False)

    assert sorted(pods(job)) == ["job-worker-0", "job-worker-1"]
    assert not any('FROM "jobs_taskspec"' in q["sql"] for q in queries.captured_queries)


def test_a_pass_over_many_changed_jobs_reads_their_tasks_once() -> None:
    for index in range(5):
        submit(f"job-{index}", tasks=[task("ps", 1), task("worker", 2)])

    with CaptureQueriesContext(connection) as queries:
        report = reconcile_all(NOW)

    assert report.jobs == 5
    assert set(Job.objects.values_list("phase", flat=True)) == {"Pending"}
    task_reads = [q for q in queries.captured_queries if 'FROM "jobs_taskspec"' in q["sql"]]
    assert len(task_reads) == 1  # the tasks of all five, in one query


_JOB_ROWS = ('"jobs_job"', '"jobs_taskspec"', '"core_pod"', '"queues_podgroup"', '"core_event"')


def _row_reads(captured: list[dict[str, str]]) -> int:
    """Return how many of the captured queries read a job's own rows (its row, tasks, pods,
    PodGroup, Events); the change stream's bookkeeping of each write is not counted."""
    return sum(
        1
        for q in captured
        if q["sql"].startswith("SELECT") and any(f"FROM {t}" in q["sql"] for t in _JOB_ROWS)
    )


def _burst_reads(prefix: str, count: int, at: dt.datetime) -> list[int]:
    """Submit ``count`` jobs at once and take them to Running as the scheduler and kubelet
    would; return the row reads of each of the three passes that change every job."""
    jobs = [submit(f"{prefix}-{i}", tasks=[task("worker", 2)]) for i in range(count)]
    reads = []
    plays: list[Callable[[Job], None]] = [_new, admit, _run]
    for step, play in enumerate(plays):
        for job in jobs:
            play(job)
        with CaptureQueriesContext(connection) as queries:
            report = reconcile_all(at + dt.timedelta(seconds=step))
        assert report.jobs == count
        assert len(report.changed_jobs) == count
        reads.append(_row_reads(queries.captured_queries))
    assert Job.objects.filter(name__startswith=prefix, phase="Running").count() == count
    return reads


def _new(job: Job) -> None:
    """Nothing: the jobs were just submitted."""


def _run(job: Job) -> None:
    set_pods(job, PodPhase.RUNNING)


def test_a_pass_over_many_changed_jobs_reads_their_rows_in_as_many_queries_as_for_few() -> None:
    reconcile._restart()
    reconcile_all(NOW - dt.timedelta(seconds=1))  # the process's first pass (full) is behind
    few = _burst_reads("few", 2, NOW)
    for _ in range(10):  # the first burst settles (a pass with nothing left to change)
        if not reconcile_all(NOW + dt.timedelta(seconds=3)).jobs:
            break
    else:
        pytest.fail("the first burst never settled")

    many = _burst_reads("many", 6, NOW + dt.timedelta(seconds=4))

    assert many == few  # PodGroups made, pods made, jobs Running: the same reads each pass


def test_a_job_recorded_again_in_a_batch_counts_its_event_once_more() -> None:
    job = submit("again")
    reconcile_all(NOW)
    Job.objects.filter(pk=job.pk).update(phase="")  # a job that must be told Pending again

    reconcile_all(NOW + dt.timedelta(seconds=1))

    pending = Event.objects.filter(involved_name="again", reason="Pending")
    assert [e.count for e in pending] == [2]
