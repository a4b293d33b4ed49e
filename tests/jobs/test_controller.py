"""The job controller's lifecycle: PodGroup first, pods after admission, phases by the counts."""

from __future__ import annotations

import datetime as dt

import pytest

from core.models import Event, Pod, PodPhase
from jobs.controller import reconcile_all
from jobs.models import CommandAction, Job
from queues.models import PodGroup
from tests.jobs.controller_kit import (
    NOW,
    admit,
    event_reasons,
    pods,
    set_pods,
    start,
    submit,
    task,
    tick,
)

pytestmark = pytest.mark.django_db


def test_new_job_gets_a_pending_pod_group_and_no_pods_until_admitted() -> None:
    job = submit(tasks=[task("ps", 1), task("worker", 2, minAvailable=1)])
    tick(job)
    assert job.phase == "Pending"
    group = PodGroup.objects.get(job=job)
    assert group.name == f"job-{job.uid}"
    assert (group.min_member, group.min_task_member) == (2, {"ps": 1, "worker": 1})
    assert group.min_resources == {
        "count/pods": 2000,
        "cpu": 2000,
        "pods": 2000,
        "requests.cpu": 2000,
    }
    assert group.queue == "default"
    assert pods(job) == {}
    tick(job)
    assert pods(job) == {}


def test_admitted_pod_group_gets_one_pod_per_replica_named_job_task_index() -> None:
    job = submit(tasks=[task("ps", 1), task("worker", 2)])
    tick(job)
    admit(job)
    result = tick(job)
    assert result.pods_created == 3
    created = pods(job)
    assert sorted(created) == ["job-ps-0", "job-worker-0", "job-worker-1"]
    pod = created["job-worker-1"]
    assert (pod.task_name, pod.task_index, pod.phase) == ("worker", 1, PodPhase.PENDING)
    assert pod.pod_group == PodGroup.objects.get(job=job)
    assert pod.annotations["volcano.sh/job-version"] == "0"
    assert pod.labels["volcano.sh/job-name"] == "job"
    assert pod.requests == {"cpu": 1000}
    assert pod.scheduler_name == "volcano"


def test_pending_job_runs_once_min_available_pods_run() -> None:
    job = submit(tasks=[task("worker", 3)], minAvailable=2)
    tick(job)
    admit(job)
    tick(job)
    set_pods(job, PodPhase.RUNNING, "job-worker-0")
    tick(job)
    assert job.phase == "Pending"
    set_pods(job, PodPhase.RUNNING, "job-worker-1")
    tick(job)
    assert job.phase == "Running"
    assert (job.running, job.pending) == (2, 1)


def test_all_pods_succeeded_completes_the_job_and_the_next_pass_removes_its_pod_group() -> None:
    job = submit()
    start(job)
    set_pods(job, PodPhase.SUCCEEDED, exit_code=0)
    tick(job)
    assert job.phase == "Completed"
    assert job.succeeded == 2
    assert PodGroup.objects.filter(job=job).exists()
    tick(job)
    assert not PodGroup.objects.filter(job=job).exists()
    assert len(pods(job)) == 2  # finished pods stay for their logs


def test_failed_pods_without_policy_fail_the_job_when_all_are_finished() -> None:
    job = submit()
    start(job)
    set_pods(job, PodPhase.FAILED, "job-worker-0", exit_code=1)
    tick(job)
    assert job.phase == "Running"  # a failed pod alone is only counted
    assert "job-worker-0" in pods(job)
    set_pods(job, PodPhase.SUCCEEDED, "job-worker-1", exit_code=0)
    tick(job)
    assert job.phase == "Failed"


def test_running_job_goes_back_to_pending_when_the_gang_is_short() -> None:
    job = submit()
    start(job)
    set_pods(job, PodPhase.PENDING, "job-worker-0")
    tick(job)
    assert job.phase == "Pending"


def test_second_pass_over_a_settled_job_changes_nothing() -> None:
    job = submit()
    start(job)
    version, events = job.resource_version, Event.objects.count()
    pod_versions = sorted(Pod.objects.values_list("resource_version", flat=True))
    result = tick(job)
    assert not result.changed
    assert job.resource_version == version
    assert Event.objects.count() == events
    assert sorted(Pod.objects.values_list("resource_version", flat=True)) == pod_versions


def test_finished_job_is_left_alone_once_torn_down() -> None:
    job = submit()
    start(job)
    set_pods(job, PodPhase.SUCCEEDED, exit_code=0)
    tick(job)
    tick(job)
    version = job.resource_version
    assert not tick(job).changed
    assert job.resource_version == version


def test_every_transition_records_an_event_and_a_condition() -> None:
    job = submit()
    start(job)
    set_pods(job, PodPhase.SUCCEEDED, exit_code=0)
    tick(job)
    assert event_reasons(job) == ["Pending", "Running", "Completed"]
    assert [c["status"] for c in job.conditions] == ["Pending", "Running", "Completed"]
    assert job.last_transition_time == NOW


def test_scaling_a_task_up_creates_pods_and_down_deletes_the_highest() -> None:
    job = submit()
    start(job)
    job.tasks.filter(name="worker").update(replicas=3)
    tick(job)
    assert sorted(pods(job)) == ["job-worker-0", "job-worker-1", "job-worker-2"]
    assert PodGroup.objects.get(job=job).min_resources["cpu"] == 2000
    job.tasks.filter(name="worker").update(replicas=1, min_available=1)
    Job.objects.filter(pk=job.pk).update(min_available=1)
    job.refresh_from_db()
    tick(job)
    assert sorted(pods(job)) == ["job-worker-0"]
    assert PodGroup.objects.get(job=job).min_member == 1


def test_min_success_completes_the_job_while_other_pods_still_run() -> None:
    job = submit(tasks=[task("worker", 3)], minSuccess=1)
    start(job)
    set_pods(job, PodPhase.SUCCEEDED, "job-worker-0", exit_code=0)
    tick(job)
    assert job.phase == "Completed"
    tick(job)
    assert sorted(pods(job)) == ["job-worker-0"]  # the running rest is torn down


def test_task_min_available_unmet_fails_the_job() -> None:
    job = submit(tasks=[task("ps", 1), task("worker", 2, minAvailable=2)])
    start(job)
    set_pods(job, PodPhase.SUCCEEDED, "job-ps-0", "job-worker-0", exit_code=0)
    set_pods(job, PodPhase.FAILED, "job-worker-1", exit_code=1)
    tick(job)
    assert job.phase == "Failed"


def test_depends_on_creates_a_task_only_when_its_prerequisite_runs() -> None:
    job = submit(
        tasks=[task("master", 1), task("worker", 2, dependsOn={"name": ["master"]})],
        minAvailable=1,
    )
    tick(job)
    admit(job)
    tick(job)
    assert sorted(pods(job)) == ["job-master-0"]
    tick(job)
    assert sorted(pods(job)) == ["job-master-0"]
    set_pods(job, PodPhase.RUNNING, "job-master-0")
    tick(job)
    assert sorted(pods(job)) == ["job-master-0", "job-worker-0", "job-worker-1"]


def test_depends_on_any_needs_only_one_ready_task() -> None:
    job = submit(
        tasks=[
            task("a", 1),
            task("b", 1),
            task("c", 1, dependsOn={"name": ["a", "b"], "iteration": "any"}),
        ],
        minAvailable=1,
    )
    tick(job)
    admit(job)
    tick(job)
    set_pods(job, PodPhase.SUCCEEDED, "job-a-0", exit_code=0)
    tick(job)
    assert "job-c-0" in pods(job)


def test_ttl_deletes_a_finished_job_after_its_seconds_and_not_before() -> None:
    job = submit(ttlSecondsAfterFinished=60)
    start(job)
    set_pods(job, PodPhase.SUCCEEDED, exit_code=0)
    tick(job)
    tick(job, NOW + dt.timedelta(seconds=59))
    assert Job.objects.filter(pk=job.pk).exists()
    result = tick(job, NOW + dt.timedelta(seconds=60))
    assert result.deleted_by_ttl
    assert not Job.objects.filter(pk=job.pk).exists()
    assert not Pod.objects.filter(name__startswith="job-").exists()


def test_aborted_jobs_are_never_deleted_by_ttl() -> None:
    job = submit(ttlSecondsAfterFinished=0)
    tick(job)
    Job.objects.filter(pk=job.pk).update(phase="Aborted")
    tick(job, NOW + dt.timedelta(days=1))
    assert Job.objects.filter(pk=job.pk).exists()


def test_reconcile_all_reports_transitions_and_survives_a_broken_job() -> None:
    good = submit("good")
    submit("bad")
    Job.objects.filter(name="bad").update(policies=[{"event": "PodFailed", "timeout": "x"}])
    Pod.objects.create(
        name="bad-worker-0", job=Job.objects.get(name="bad"), task_name="worker", phase="Failed"
    )
    report = reconcile_all(NOW)
    assert report.transitions["default/good"] == ["New->Pending"]
    assert report.jobs == 2
    assert list(report.errors) == [f"#{Job.objects.get(name='bad').pk}"]
    good.refresh_from_db()
    assert good.phase == "Pending"


def test_reconcile_all_skips_settled_jobs_until_something_changes() -> None:
    from jobs.services import command_issue

    job = submit()
    start(job)
    reconcile_all(NOW)  # settles: nothing changes, the job is remembered
    assert reconcile_all(NOW).skipped == 1
    set_pods(job, PodPhase.SUCCEEDED, "job-worker-0", exit_code=0)  # the kubelet's write
    report = reconcile_all(NOW)
    assert (report.skipped, report.jobs) == (0, 1)
    reconcile_all(NOW)
    command_issue(job=job, action=CommandAction.ABORT_JOB)  # a waiting command wakes it too
    reconcile_all(NOW)
    job.refresh_from_db()
    assert job.phase == "Aborting"


def test_full_pass_reconciles_settled_jobs_too() -> None:
    submit()
    reconcile_all(NOW)
    reconcile_all(NOW)
    assert reconcile_all(NOW, full=True).skipped == 0


def test_reconcile_command_prints_the_pass() -> None:
    from io import StringIO

    from django.core.management import call_command

    submit()
    out = StringIO()
    call_command("reconcile", stdout=out)
    assert "1 jobs, 1 changed" in out.getvalue()
    assert "default/job: New->Pending" in out.getvalue()
