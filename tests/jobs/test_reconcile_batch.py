"""A pass over many jobs reads their tasks in one query, and never acts on stale ones."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobs.controller import reconcile_all, reconcile_job
from jobs.models import Job, TaskSpec
from tests.jobs.controller_kit import NOW, admit, pods, submit, task, tick

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
