"""Job and PodGroup admission: every rule passes a good object and names the field of a bad one.

Each failing case also checks that nothing was written: admission runs before
any row is saved, whichever entry point is used.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from apis.errors import ManifestError
from core.admission import admit_pod
from core.models import Pod
from jobs.admission import admit_job
from jobs.models import Job, TaskSpec
from jobs.services import job_submit, job_update, pod_group_create
from kube.admission_causes import AdmissionError, CauseType
from kube.manifests import apply_manifests, load_manifest
from kube.status import KubeError
from queues.models import PodGroup, Queue, QueueState

pytestmark = pytest.mark.django_db

Patch = Callable[[dict[str, Any]], None]


def container(**extra: Any) -> dict[str, Any]:
    return {"name": "main", "image": "busybox", **extra}


def manifest(name: str = "job") -> dict[str, Any]:
    """Return a valid job with one task of two replicas."""
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "tasks": [
                {
                    "name": "worker",
                    "replicas": 2,
                    "template": {"spec": {"containers": [container()]}},
                }
            ]
        },
    }


def spec(**values: Any) -> Patch:
    return lambda doc: doc["spec"].update(values)


def task0(**values: Any) -> Patch:
    return lambda doc: doc["spec"]["tasks"][0].update(values)


def container0(**values: Any) -> Patch:
    return lambda doc: doc["spec"]["tasks"][0]["template"]["spec"]["containers"][0].update(values)


def second_task(**values: Any) -> Patch:
    def patch(doc: dict[str, Any]) -> None:
        extra = copy.deepcopy(doc["spec"]["tasks"][0])
        extra.update({"name": "ps", "replicas": 1, **values})
        doc["spec"]["tasks"].append(extra)

    return patch


def queue(name: str, **fields: Any) -> Patch:
    def patch(doc: dict[str, Any]) -> None:
        Queue.objects.create(name=name, **fields)

    return patch


def both(*patches: Patch) -> Patch:
    def patch(doc: dict[str, Any]) -> None:
        for each in patches:
            each(doc)

    return patch


@dataclass
class Case:
    name: str
    patch: Patch
    field: str | None = None  # None: admitted
    reason: CauseType | None = None


INV, REQ, DUP, NS, FORB, NF = (
    CauseType.INVALID,
    CauseType.REQUIRED,
    CauseType.DUPLICATE,
    CauseType.NOT_SUPPORTED,
    CauseType.FORBIDDEN,
    CauseType.NOT_FOUND,
)
POLICY = {"event": "PodEvicted", "action": "RestartJob"}

CASES = [
    Case("tasks present", spec()),
    Case("no task", spec(tasks=[]), "spec.tasks", REQ),
    Case("task names unique", second_task()),
    Case("task names duplicated", second_task(name="worker"), "spec.tasks[1].name", DUP),
    Case("task name not a DNS label", task0(name="Worker"), "spec.tasks[0].name", INV),
    Case("replicas zero", both(task0(replicas=0), spec(minAvailable=0))),
    Case("replicas negative", task0(replicas=-1), "spec.tasks[0].replicas", INV),
    Case("task minAvailable = replicas", task0(minAvailable=2)),
    Case("task minAvailable > replicas", task0(minAvailable=3), "spec.tasks[0].minAvailable", INV),
    Case("task minAvailable negative", task0(minAvailable=-1), "spec.tasks[0].minAvailable", INV),
    Case("job minAvailable = total", spec(minAvailable=2)),
    Case("job minAvailable > total", spec(minAvailable=3), "spec.minAvailable", INV),
    Case("maxRetry zero defaults", spec(maxRetry=0)),
    Case("maxRetry negative", spec(maxRetry=-1), "spec.maxRetry", INV),
    Case("ttl zero", spec(ttlSecondsAfterFinished=0)),
    Case("ttl negative", spec(ttlSecondsAfterFinished=-1), "spec.ttlSecondsAfterFinished", INV),
    Case("minSuccess one", spec(minSuccess=1)),
    Case("minSuccess zero", spec(minSuccess=0), "spec.minSuccess", INV),
    Case("job name 63 long", lambda d: d["metadata"].update(name="j" * 53)),
    Case(
        "pod names too long",
        lambda d: d["metadata"].update(name="j" * 60),
        "spec.tasks[0].name",
        INV,
    ),
    Case("container with image", container0(image="nginx")),
    Case(
        "container without image",
        container0(image=""),
        "spec.tasks[0].template.spec.containers[0].image",
        REQ,
    ),
    Case(
        "request above limit",
        container0(resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
        "spec.tasks[0].template.spec.containers[0].resources.requests",
        INV,
    ),
    Case(
        "container names duplicated",
        lambda d: d["spec"]["tasks"][0]["template"]["spec"]["containers"].append(container()),
        "spec.tasks[0].template.spec.containers[1].name",
        DUP,
    ),
    Case("event policy", spec(policies=[POLICY])),
    Case("exitCode policy", spec(policies=[{"exitCode": 3, "action": "RestartTask"}])),
    Case(
        "event and exitCode",
        spec(policies=[{**POLICY, "exitCode": 3}]),
        "spec.policies[0]",
        INV,
    ),
    Case(
        "neither event nor exitCode",
        spec(policies=[{"action": "AbortJob"}]),
        "spec.policies[0]",
        REQ,
    ),
    Case(
        "internal event",
        spec(policies=[{"event": "PodRunning", "action": "AbortJob"}]),
        "spec.policies[0].event",
        NS,
    ),
    Case(
        "internal action",
        spec(policies=[{"event": "PodFailed", "action": "SyncJob"}]),
        "spec.policies[0].action",
        NS,
    ),
    Case(
        "event in two policies",
        spec(policies=[POLICY, {"events": ["PodFailed", "PodEvicted"], "action": "AbortJob"}]),
        "spec.policies[1].events",
        DUP,
    ),
    Case(
        "exitCode zero",
        spec(policies=[{"exitCode": 0, "action": "AbortJob"}]),
        "spec.policies[0].exitCode",
        INV,
    ),
    Case(
        "exitCode twice",
        spec(
            policies=[
                {"exitCode": 2, "action": "AbortJob"},
                {"exitCode": 2, "action": "RestartJob"},
            ]
        ),
        "spec.policies[1].exitCode",
        DUP,
    ),
    Case("star alone", spec(policies=[{"event": "*", "action": "AbortJob"}])),
    Case(
        "star with others",
        spec(policies=[{"event": "*", "action": "AbortJob"}, POLICY]),
        "spec.policies",
        INV,
    ),
    Case("timeout", spec(policies=[{**POLICY, "timeout": "5m"}])),
    Case(
        "bad timeout",
        spec(policies=[{**POLICY, "timeout": "soon"}]),
        "spec.policies[0].timeout",
        INV,
    ),
    Case(
        "task policy",
        task0(policies=[{"event": "Unknown", "action": "Oops"}]),
        "spec.tasks[0].policies[0].action",
        NS,
    ),
    Case("known plugins", spec(plugins={"env": [], "svc": [], "ssh": []})),
    Case("unknown plugin", spec(plugins={"magic": []}), "spec.plugins.magic", NS),
    Case("mpi with master", both(second_task(name="master"), spec(plugins={"mpi": []}))),
    Case("mpi without master", spec(plugins={"mpi": []}), "spec.plugins.mpi", NF),
    Case("volume with claim name", spec(volumes=[{"mountPath": "/d", "volumeClaimName": "data"}])),
    Case(
        "mount path twice",
        spec(volumes=[{"mountPath": "/d"}, {"mountPath": "/d"}]),
        "spec.volumes[1].mountPath",
        DUP,
    ),
    Case(
        "claim and claim name",
        spec(volumes=[{"mountPath": "/d", "volumeClaimName": "x", "volumeClaim": {}}]),
        "spec.volumes[0]",
        INV,
    ),
    Case(
        "bad claim name",
        spec(volumes=[{"mountPath": "/d", "volumeClaimName": "Bad_Name"}]),
        "spec.volumes[0].volumeClaimName",
        INV,
    ),
    Case("open leaf queue", both(queue("team"), spec(queue="team"))),
    Case("missing queue", spec(queue="nowhere"), "spec.queue", NF),
    Case(
        "closed queue",
        both(queue("shut", state=QueueState.CLOSED), spec(queue="shut")),
        "spec.queue",
        FORB,
    ),
    Case("root queue", spec(queue="root"), "spec.queue", FORB),
    Case(
        "queue with children",
        both(queue("parent"), queue("child", parent="parent"), spec(queue="parent")),
        "spec.queue",
        FORB,
    ),
    Case("dependsOn a DAG", second_task(dependsOn={"name": ["worker"]})),
    Case(
        "dependsOn a cycle",
        both(second_task(dependsOn={"name": ["worker"]}), task0(dependsOn={"name": ["ps"]})),
        "spec.tasks[0].dependsOn",
        INV,
    ),
    Case(
        "dependsOn unknown task",
        task0(dependsOn={"name": ["ghost"]}),
        "spec.tasks[0].dependsOn.name[0]",
        NF,
    ),
    Case(
        "dependsOn bad iteration",
        second_task(dependsOn={"name": ["worker"], "iteration": "some"}),
        "spec.tasks[1].dependsOn.iteration",
        NS,
    ),
    Case(
        "topology policy with whole cpus",
        both(
            task0(topologyPolicy="single-numa-node"),
            container0(resources={"requests": {"cpu": "2"}}),
        ),
    ),
    Case(
        "unknown topology policy", task0(topologyPolicy="tight"), "spec.tasks[0].topologyPolicy", NS
    ),
    Case(
        "topology policy with a fraction of a cpu",
        both(
            task0(topologyPolicy="restricted"), container0(resources={"requests": {"cpu": "500m"}})
        ),
        "spec.tasks[0].template.spec.containers[0].resources.requests.cpu",
        INV,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_job_admission_rule(case: Case) -> None:
    doc = manifest()
    case.patch(doc)
    if case.field is None:
        job = job_submit(manifest=doc)
        assert Job.objects.filter(pk=job.pk).exists()
        return
    with pytest.raises(KubeError) as caught:
        job_submit(manifest=doc)
    assert caught.value.code == 422
    assert (case.field, case.reason) in {(c.field, c.reason) for c in caught.value.causes}
    assert not Job.objects.exists()
    assert not TaskSpec.objects.exists()


def test_every_violation_is_reported_at_once() -> None:
    doc = manifest()
    spec(minAvailable=5, queue="nowhere", plugins={"magic": []})(doc)
    task0(minAvailable=3)(doc)
    with pytest.raises(AdmissionError) as caught:
        admit_job(doc)
    fields = [cause.field for cause in caught.value.causes]
    assert set(fields) == {
        "spec.tasks[0].minAvailable",
        "spec.minAvailable",
        "spec.plugins.magic",
        "spec.queue",
    }
    status_cause = caught.value.causes[0].as_status_cause()
    assert set(status_cause) == {"reason", "message", "field"}
    assert str(caught.value).count(";") == 3
    with pytest.raises(KubeError) as refused:  # a submission names all four, too
        job_submit(manifest=doc)
    assert {cause.field for cause in refused.value.causes} == set(fields)


def test_defaults_are_filled_in() -> None:
    doc = manifest()
    doc["spec"]["tasks"][0].pop("name")
    second_task(minAvailable=0)(doc)
    job = job_submit(manifest=doc)
    assert (job.queue, job.scheduler_name, job.max_retry) == ("default", "volcano", 3)
    tasks = list(job.tasks.order_by("index"))
    assert [t.name for t in tasks] == ["default0", "ps"]
    assert [(t.min_available, t.max_retry) for t in tasks] == [(2, 3), (0, 3)]
    assert job.min_available == 2  # 2 (replicas of default0) + 0 (ps's own minAvailable)


def test_update_may_scale_but_not_change_other_fields() -> None:
    job = job_submit(manifest=manifest())
    scaled = manifest()
    task0(replicas=4, minAvailable=3)(scaled)
    spec(minAvailable=3, priorityClassName="high")(scaled)
    job = job_update(job=job, manifest=scaled)
    assert (job.min_available, job.priority_class_name) == (3, "high")
    assert job.tasks.get().replicas == 4

    Queue.objects.create(name="other")
    moved = copy.deepcopy(scaled)
    spec(queue="other", maxRetry=5)(moved)
    container0(image="nginx")(moved)
    second_task(minAvailable=1)(moved)
    with pytest.raises(KubeError) as caught:
        job_update(job=job, manifest=moved)
    fields = {cause.field for cause in caught.value.causes}
    assert {"spec.queue", "spec.maxRetry", "spec.tasks"} <= fields
    assert all(c.reason == FORB for c in caught.value.causes)
    job.refresh_from_db()
    assert (job.queue, job.max_retry, job.tasks.count()) == ("default", 3, 1)


def test_update_still_checks_the_numbers() -> None:
    job = job_submit(manifest=manifest())
    shrunk = manifest()
    task0(replicas=1, minAvailable=1)(shrunk)
    spec(minAvailable=2)(shrunk)
    with pytest.raises(KubeError) as caught:
        job_update(job=job, manifest=shrunk)
    assert [c.field for c in caught.value.causes] == ["spec.minAvailable"]
    assert job.tasks.get().replicas == 2


def test_update_into_a_closed_queue_is_allowed_for_a_job_already_there() -> None:
    job = job_submit(manifest=manifest())
    Queue.objects.filter(name="default").update(state=QueueState.CLOSED)
    scaled = manifest()
    task0(replicas=3)(scaled)
    assert job_update(job=job, manifest=scaled).tasks.get().replicas == 3


def test_apply_refuses_a_bad_job_naming_the_field_and_writes_nothing(tmp_path: Any) -> None:
    doc = manifest()
    task0(minAvailable=9)(doc)
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(CommandError, match=r"spec\.tasks\[0\]\.minAvailable"):
        call_command("apply", "-f", str(path), stdout=StringIO())
    assert not Job.objects.exists()


def test_admit_job_accepts_an_unsaved_job_with_tasks() -> None:
    job = Job(name="direct")
    tasks = [TaskSpec(name="a", replicas=1, template={"spec": {"containers": [container()]}})]
    loaded = admit_job(job, tasks=tasks)
    assert loaded.instance.min_available == 1
    assert not Job.objects.exists()


def test_malformed_manifest_is_an_admission_error_with_its_field() -> None:
    doc = manifest()
    task0(replicas="two")(doc)
    with pytest.raises(AdmissionError) as caught:
        admit_job(doc)
    assert caught.value.causes[0].field == "spec.tasks[0].replicas"


PODGROUP: dict[str, Any] = {
    "apiVersion": "scheduling.volcano.sh/v1beta1",
    "kind": "PodGroup",
    "metadata": {"name": "pg"},
    "spec": {"minMember": 1, "queue": "default"},
}


@pytest.mark.parametrize(
    ("queue_name", "state", "field", "reason"),
    [
        ("default", QueueState.OPEN, None, None),
        ("nowhere", None, "spec.queue", NF),
        ("shut", QueueState.CLOSED, "spec.queue", FORB),
    ],
    ids=["open queue", "missing queue", "closed queue"],
)
def test_pod_group_admission(
    queue_name: str, state: str | None, field: str | None, reason: CauseType | None
) -> None:
    if state is not None and queue_name != "default":
        Queue.objects.create(name=queue_name, state=state)
    doc = copy.deepcopy(PODGROUP)
    doc["spec"]["queue"] = queue_name
    if field is None:
        assert pod_group_create(manifest=doc).queue == queue_name
        return
    with pytest.raises(KubeError) as caught:
        pod_group_create(manifest=doc)
    assert [(c.field, c.reason) for c in caught.value.causes] == [(field, reason)]
    assert not PodGroup.objects.exists()


POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p"},
    "spec": {"schedulerName": "volcano", "containers": [container()]},
}
JDB_MIN, JDB_MAX = "volcano.sh/jdb-min-available", "volcano.sh/jdb-max-unavailable"


@pytest.mark.parametrize(
    ("annotations", "field"),
    [
        ({JDB_MIN: "2"}, None),
        ({JDB_MAX: "25%"}, None),
        ({JDB_MIN: "0"}, f"metadata.annotations[{JDB_MIN}]"),
        ({JDB_MAX: "100%"}, f"metadata.annotations[{JDB_MAX}]"),
        ({JDB_MIN: "1", JDB_MAX: "1"}, f"metadata.annotations[{JDB_MAX}]"),
    ],
    ids=["min integer", "max percent", "min zero", "max 100%", "both"],
)
def test_pod_disruption_budget_annotations(annotations: dict[str, str], field: str | None) -> None:
    doc = copy.deepcopy(POD)
    doc["metadata"]["annotations"] = annotations
    if field is None:
        assert admit_pod(doc).instance.name == "p"
        return
    with pytest.raises(AdmissionError) as caught:
        admit_pod(doc)
    assert field in {cause.field for cause in caught.value.causes}
    with pytest.raises(ManifestError, match=re.escape(f"pod.yaml: {field}")):
        apply_manifests([("pod.yaml", load_manifest(doc))])
    assert not Pod.objects.exists()


@pytest.mark.django_db
def test_an_event_repeated_inside_one_policy_is_accepted_as_volcano_does() -> None:
    doc = manifest("repeats")
    doc["spec"]["policies"] = [
        {"events": ["PodEvicted", "PodFailed", "PodEvicted"], "action": "RestartJob"}
    ]
    admit_job(doc)  # Volcano's own e2e suite submits this


@pytest.mark.django_db
def test_an_event_named_by_two_policies_is_refused_naming_the_second() -> None:
    doc = manifest("twice")
    doc["spec"]["policies"] = [
        {"event": "PodEvicted", "action": "RestartJob"},
        {"events": ["PodFailed", "PodEvicted"], "action": "AbortJob"},
    ]
    with pytest.raises(AdmissionError) as refused:
        admit_job(doc)
    assert [c.field for c in refused.value.causes] == ["spec.policies[1].events"]
