"""The JobFlow controller: jobs made from templates as their dependencies hold, the flow's
status as Volcano keeps it, the retain policy, and a second pass that writes nothing."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from core.models import Event, Pod
from flow.controller.jobflow import reconcile_job_flows
from flow.models import JobFlow, JobTemplate
from jobs.models import Job
from tests.flow.kit import NOW, flow, jobs, set_phase, template

pytestmark = pytest.mark.django_db

LATER = NOW + dt.timedelta(minutes=1)


def _chain() -> JobFlow:
    for name in ("prepare", "train", "evaluate"):
        template(name)
    return flow("pipe", [
        {"name": "prepare"},
        {"name": "train", "dependsOn": {"targets": ["prepare"]}},
        {"name": "evaluate", "dependsOn": {"targets": ["train"]}},
    ])  # fmt: skip


def test_a_step_without_dependencies_starts_at_once_owned_and_labelled_by_the_flow() -> None:
    pipe = _chain()
    reconcile_job_flows(NOW)
    assert jobs() == ["pipe-prepare"]
    job = Job.objects.get(name="pipe-prepare")
    assert job.labels == {"volcano.sh/createdByJobTemplate": "default.prepare",
                          "volcano.sh/createdByJobFlow": "default.pipe"}  # fmt: skip
    assert job.annotations["volcano.sh/createdByJobFlow"] == "default.pipe"
    owner = job.owner_references[0]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
        "JobFlow", "pipe", str(pipe.uid), True)  # fmt: skip
    assert [t.name for t in job.tasks.all()] == ["main"]
    assert Event.objects.filter(involved_name="pipe", reason="Created",
                                message="create a job named pipe-prepare!").exists()  # fmt: skip


def test_a_dependent_step_waits_for_its_target_to_complete_and_the_flow_succeeds() -> None:
    _chain()
    reconcile_job_flows(NOW)
    set_phase("pipe-prepare", "Running")
    reconcile_job_flows(NOW)
    assert jobs() == ["pipe-prepare"]
    assert JobFlow.objects.get().phase == "Running"
    set_phase("pipe-prepare", "Completed")
    reconcile_job_flows(NOW)
    assert jobs() == ["pipe-prepare", "pipe-train"]
    set_phase("pipe-train", "Completed")
    reconcile_job_flows(NOW)
    set_phase("pipe-evaluate", "Completed")
    reconcile_job_flows(LATER)
    stored = JobFlow.objects.get()
    assert stored.phase == "Succeed"
    assert stored.completed_jobs == ["pipe-prepare", "pipe-train", "pipe-evaluate"]


def test_a_diamond_joins_only_when_both_branches_completed() -> None:
    for name in "abcde":
        template(name)
    flow("test", [{"name": "a"}, {"name": "b", "dependsOn": {"targets": ["a"]}},
                  {"name": "c", "dependsOn": {"targets": ["b"]}},
                  {"name": "d", "dependsOn": {"targets": ["b"]}},
                  {"name": "e", "dependsOn": {"targets": ["c", "d"]}}])  # fmt: skip
    reconcile_job_flows(NOW)
    for name in ("test-a", "test-b"):
        set_phase(name, "Completed")
        reconcile_job_flows(NOW)
    assert jobs() == ["test-a", "test-b", "test-c", "test-d"]
    set_phase("test-c", "Completed")
    reconcile_job_flows(NOW)
    assert "test-e" not in jobs()
    set_phase("test-d", "Completed")
    reconcile_job_flows(NOW)
    assert "test-e" in jobs()


def test_the_status_buckets_jobs_by_phase_with_conditions_and_running_histories() -> None:
    _chain()
    reconcile_job_flows(NOW)
    set_phase("pipe-prepare", "Running", task_status_count={"main": {"phase": {"Running": 1}}})
    reconcile_job_flows(NOW)
    set_phase("pipe-prepare", "Completed", at=LATER)
    reconcile_job_flows(LATER)
    stored = JobFlow.objects.get()
    assert stored.completed_jobs == ["pipe-prepare"]
    assert stored.pending_jobs == []  # pipe-train is new: the job controller has not seen it
    assert stored.unknown_jobs == ["pipe-train"]
    condition = stored.conditions["pipe-prepare"]
    assert condition["phase"] == "Completed"
    assert condition["taskStatusCount"] == {"main": {"phase": {"Running": 1}}}
    entry = next(e for e in stored.job_status_list if e["name"] == "pipe-prepare")
    assert [h["state"] for h in entry["runningHistories"]] == ["Running", "Completed"]
    assert entry["runningHistories"][0]["endTimestamp"] == "2026-01-01T12:01:00Z"
    assert entry["endTimestamp"] == "2026-01-01T12:01:00Z"


def test_a_second_pass_writes_nothing() -> None:
    _chain()
    reconcile_job_flows(NOW)
    set_phase("pipe-prepare", "Running")
    reconcile_job_flows(NOW)
    versions = (JobFlow.objects.get().resource_version,
                list(JobTemplate.objects.values_list("resource_version", flat=True)))  # fmt: skip
    assert reconcile_job_flows(LATER) == 0
    assert (JobFlow.objects.get().resource_version,
            list(JobTemplate.objects.values_list("resource_version", flat=True))) == versions  # fmt: skip
    assert jobs() == ["pipe-prepare"]


def test_a_failed_step_fails_the_flow_and_nothing_more_starts() -> None:
    _chain()
    reconcile_job_flows(NOW)
    set_phase("pipe-prepare", "Running")
    reconcile_job_flows(NOW)
    set_phase("pipe-prepare", "Failed")
    reconcile_job_flows(NOW)
    assert JobFlow.objects.get().phase == "Failed"
    assert JobFlow.objects.get().failed_jobs == ["pipe-prepare"]
    assert jobs() == ["pipe-prepare"]


@pytest.mark.parametrize(("policy", "left"), [("retain", 1), ("delete", 0)])
def test_the_retain_policy_keeps_or_deletes_the_jobs_of_a_finished_flow(
    policy: str, left: int
) -> None:
    template("only")
    flow("one", [{"name": "only"}], retain=policy)
    reconcile_job_flows(NOW)
    set_phase("one-only", "Running")
    reconcile_job_flows(NOW)
    set_phase("one-only", "Completed")
    reconcile_job_flows(NOW)
    assert JobFlow.objects.get().phase == "Succeed"
    reconcile_job_flows(LATER)
    assert Job.objects.filter(name="one-only", deletion_timestamp__isnull=True).count() == left


def test_a_step_whose_template_is_missing_waits_for_it() -> None:
    flow("late", [{"name": "later"}])
    reconcile_job_flows(NOW)
    assert jobs() == []
    assert JobFlow.objects.get().phase == "Pending"
    template("later")
    reconcile_job_flows(NOW)
    assert jobs() == ["late-later"]


def test_the_patch_is_merged_over_the_template_by_name() -> None:
    template("train", replicas=2)
    patch = {"jobSpec": {"queue": "default", "minAvailable": 3, "maxRetry": 7,
                         "tasks": [{"name": "main", "replicas": 3}]}}  # fmt: skip
    flow("tuned", [{"name": "train", "patch": patch}])
    reconcile_job_flows(NOW)
    job = Job.objects.get(name="tuned-train")
    assert (job.min_available, job.max_retry) == (3, 7)
    task = job.tasks.get()
    assert (task.name, task.replicas) == ("main", 3)
    assert task.template["spec"]["containers"][0]["image"] == "busybox"  # kept from the template
    assert JobTemplate.objects.get(name="train").spec["tasks"][0]["replicas"] == 2


def test_a_task_status_probe_starts_a_step_beside_a_target_still_running() -> None:
    template("server")
    template("client")
    probe = {"taskStatusList": [{"taskName": "main", "phase": "Running"}]}
    flow("pair", [{"name": "server"},
                  {"name": "client", "dependsOn": {"targets": ["server"], "probe": probe}}])  # fmt: skip
    reconcile_job_flows(NOW)
    set_phase("pair-server", "Running", task_status_count={"main": {"phase": {"Pending": 1}}})
    reconcile_job_flows(NOW)
    assert jobs() == ["pair-server"]
    set_phase("pair-server", "Running", task_status_count={"main": {"phase": {"Running": 1}}})
    reconcile_job_flows(NOW)
    assert jobs() == ["pair-client", "pair-server"]


@pytest.mark.parametrize(
    "probe",
    [
        {"tcpSocketList": [{"taskName": "main", "port": 8080}]},
        {"httpGetList": [{"taskName": "main", "port": 8080, "path": "/healthz"}]},
    ],
    ids=["tcp", "http"],
)
def test_a_network_probe_waits_for_a_running_pod_that_declares_the_port(
    probe: dict[str, Any],
) -> None:
    template("server")
    template("client")
    flow("net", [{"name": "server"},
                 {"name": "client", "dependsOn": {"targets": ["server"], "probe": probe}}])  # fmt: skip
    reconcile_job_flows(NOW)
    server = Job.objects.get(name="net-server")
    spec = {
        "containers": [{"name": "main", "image": "busybox", "ports": [{"containerPort": 8080}]}]
    }
    other = {
        "containers": [{"name": "main", "image": "busybox", "ports": [{"containerPort": 9090}]}]
    }
    Pod.objects.create(namespace="default", name="net-server-other", job=server,
                       task_name="main", spec=other, phase="Running")  # fmt: skip
    pod = Pod.objects.create(namespace="default", name="net-server-main-0", job=server,
                             task_name="main", spec=spec, phase="Pending")  # fmt: skip
    set_phase("net-server", "Running", running=1)
    reconcile_job_flows(NOW)
    assert "net-client" not in jobs()  # the pod declaring 8080 is not Running yet
    Pod.objects.filter(pk=pod.pk).update(phase="Running")
    set_phase("net-server", "Running", running=2)  # the job controller counts it
    reconcile_job_flows(NOW)
    assert "net-client" in jobs()


def test_a_template_lists_the_jobs_made_from_it() -> None:
    _chain()
    reconcile_job_flows(NOW)
    assert JobTemplate.objects.get(name="prepare").job_depends_on_list == ["pipe-prepare"]
    assert JobTemplate.objects.get(name="train").job_depends_on_list == []


def test_the_metrics_count_succeeded_and_failed_flows_by_namespace() -> None:
    for name, phase in (("ok-1", "Succeed"), ("ok-2", "Succeed"), ("bad", "Failed")):
        template(name)
        flow(name, [{"name": name}])
        JobFlow.objects.filter(name=name).update(phase=phase)
    text = Client().get("/metrics").content.decode()
    assert "# TYPE volcano_jobflow_succeed_phase_count counter" in text
    assert 'volcano_jobflow_succeed_phase_count{jobflow_namespace="default"} 2.0' in text
    assert 'volcano_jobflow_failed_phase_count{jobflow_namespace="default"} 1.0' in text


def test_a_pass_after_no_write_reads_no_flow(django_assert_max_num_queries: Any) -> None:
    _chain()
    reconcile_job_flows(NOW)
    reconcile_job_flows(NOW)  # reads its own writes of the first pass, writes nothing
    with django_assert_max_num_queries(3):  # one look at the change stream per watched kind
        assert reconcile_job_flows(LATER) == 0
    set_phase("pipe-prepare", "Completed")  # a write: the next pass reads and acts
    reconcile_job_flows(LATER)
    assert jobs() == ["pipe-prepare", "pipe-train"]
