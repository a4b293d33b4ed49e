"""Manifests: Volcano's examples load unchanged and round-trip; bad fields are named."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from apis.errors import ManifestError
from jobs.models import Job
from kube.manifests import dump_loaded, load_manifest, read_manifests
from queues.models import PodGroup, Queue
from scheduler.manifests import load_conf_text

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"  # ../shared/examples
MANIFEST_FILES = sorted(EXAMPLES.glob("*/*.yaml"))
CONF_FILES = sorted(EXAMPLES.glob("scheduler-conf/*.conf"))


def example(name: str) -> dict[str, Any]:
    """Return the one document of an example file, as the YAML parser gives it."""
    return yaml.safe_load((EXAMPLES / name).read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("path", MANIFEST_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_example_loads_dumps_and_reloads_to_the_same_manifest(path: Path) -> None:
    [(_, loaded)] = read_manifests(path)
    dumped = dump_loaded(loaded)
    assert dump_loaded(load_manifest(copy.deepcopy(dumped))) == dumped
    # And what was dumped says what the file said (modulo canonical quantities).
    original = yaml.safe_load(path.read_text())
    assert dumped["metadata"]["name"] == original["metadata"]["name"]
    assert (dumped["apiVersion"], dumped["kind"]) == (original["apiVersion"], original["kind"])


@pytest.mark.parametrize("path", CONF_FILES, ids=lambda p: p.name)
def test_example_conf_round_trips_as_a_scheduler_configuration(path: Path) -> None:
    loaded = load_conf_text(path.read_text())
    dumped = dump_loaded(loaded)
    assert dumped["kind"] == "ConfigMap"
    assert dumped["data"]["volcano-scheduler.conf"] == path.read_text()
    assert dump_loaded(load_manifest(copy.deepcopy(dumped))) == dumped


def test_job_example_keeps_every_spec_field() -> None:
    loaded = load_manifest(example("jobs/test-job-volumes.yaml"))
    job: Job = loaded.instance
    assert (job.name, job.namespace, job.queue, job.priority_class_name) == (
        "test-job",
        "default",
        "default",
        "high-priority",
    )
    assert (job.min_available, job.max_retry, job.scheduler_name) == (3, 5, "volcano")
    assert job.policies == [{"event": "PodEvicted", "action": "RestartJob"}]
    assert job.plugins == {"ssh": [], "env": [], "svc": []}
    assert [v["mountPath"] for v in job.volumes] == ["/myinput", "/myoutput", "/mydata"]
    [task] = loaded.children
    assert (task.name, task.replicas) == ("default-nginx", 6)
    assert task.template["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1"}


def test_queue_quantities_are_stored_canonically() -> None:
    queue: Queue = load_manifest(example("queues/default.yaml")).instance
    assert queue.capability == {"cpu": 4000, "memory": 4096 * 2**20 * 1000}
    assert dump_loaded(load_manifest(example("queues/default.yaml")))["spec"]["capability"] == {
        "cpu": "4",
        "memory": "4Gi",
    }


def test_podgroup_may_name_a_priority_class_that_does_not_exist() -> None:
    group: PodGroup = load_manifest(example("queues/podgroup.yaml")).instance
    assert group.priority_class_name == "high-prority"
    assert group.min_resources == {"cpu": 3000, "memory": 2048 * 2**20 * 1000}


def test_defaults_fill_what_the_manifest_leaves_out() -> None:
    job: Job = load_manifest(
        {
            "apiVersion": "batch.volcano.sh/v1alpha1",
            "kind": "Job",
            "metadata": {"name": "tiny"},
            "spec": {"tasks": [{"name": "t", "replicas": 1, "template": POD_TEMPLATE}]},
        }
    ).instance
    assert (job.namespace, job.queue, job.max_retry, job.scheduler_name) == (
        "default",
        "default",
        3,
        "volcano",
    )


POD_TEMPLATE = {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def job_with(**spec: Any) -> dict[str, Any]:
    """Return a small valid job manifest with ``spec`` overrides."""
    body = {"minAvailable": 1, "tasks": [{"name": "t", "replicas": 1, "template": POD_TEMPLATE}]}
    body.update(spec)
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": body,
    }


def with_container(**container: Any) -> dict[str, Any]:
    """Return a job whose only container has ``container`` fields added."""
    template = {"spec": {"containers": [{"name": "c", "image": "busybox", **container}]}}
    return job_with(tasks=[{"name": "t", "replicas": 1, "template": template}])


@dataclass(frozen=True)
class BadCase:
    name: str
    manifest: dict[str, Any]
    field: str
    message: str = ""


QUEUE = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"}}

BAD = [
    BadCase(
        "replicas not a number",
        job_with(tasks=[{"name": "t", "replicas": "two", "template": POD_TEMPLATE}]),
        "spec.tasks[0].replicas",
        "expected an integer",
    ),
    BadCase("unknown spec field", job_with(minAvailible=1), "spec.minAvailible", "unknown field"),
    BadCase("unknown top-level field", {**job_with(), "specs": {}}, "specs", "unknown field"),
    BadCase(
        "negative minAvailable",
        job_with(minAvailable=-1),
        "spec.minAvailable",
        "greater than or equal to 0",
    ),
    BadCase("maxRetry as string", job_with(maxRetry="3"), "spec.maxRetry", "integer"),
    BadCase(
        "bad quantity in a container",
        with_container(resources={"requests": {"cpu": "lots"}}),
        "spec.tasks[0].template.spec.containers[0].resources.requests.cpu",
        "'lots'",
    ),
    BadCase(
        "unknown container field",
        with_container(imagePolicy="Always"),
        "spec.tasks[0].template.spec.containers[0].imagePolicy",
        "unknown field",
    ),
    BadCase(
        "policy event as a list",
        job_with(policies=[{"event": ["PodEvicted"], "action": "RestartJob"}]),
        "spec.policies[0].event",
        "string",
    ),
    BadCase(
        "volume without mountPath",
        job_with(volumes=[{"volumeClaimName": "x"}]),
        "spec.volumes[0].mountPath",
        "required",
    ),
    BadCase(
        "upper-case job name",
        {**job_with(), "metadata": {"name": "MyJob"}},
        "metadata.name",
        "RFC 1123",
    ),
    BadCase(
        "queue weight zero",
        {**QUEUE, "spec": {"weight": 0}},
        "spec.weight",
        "greater than or equal to 1",
    ),
    BadCase(
        "queue weight as text", {**QUEUE, "spec": {"weight": "heavy"}}, "spec.weight", "integer"
    ),
    BadCase(
        "queue capability quantity",
        {**QUEUE, "spec": {"capability": {"nvidia.com/gpu": "2Xi"}}},
        "spec.capability.nvidia.com/gpu",
        "'2Xi'",
    ),
    BadCase("queue state unknown", {**QUEUE, "status": {"state": "Paused"}}, "status.state"),
    BadCase(
        "labels not strings",
        {**QUEUE, "metadata": {"name": "q", "labels": {"a": 1}}},
        "metadata.labels.a",
        "string",
    ),
    BadCase("metadata typo", {**QUEUE, "metadata": {"name": "q", "lables": {}}}, "metadata.lables"),
    BadCase(
        "kind unknown",
        {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Widget", "metadata": {"name": "c"}},
        "kind",
        "unsupported kind",
    ),
]


@pytest.mark.parametrize("case", BAD, ids=lambda c: c.name)
def test_bad_manifest_is_refused_naming_the_field(case: BadCase) -> None:
    with pytest.raises(ManifestError) as caught:
        load_manifest(case.manifest)
    assert caught.value.field == case.field
    assert case.message in str(caught.value)


def test_bad_conf_text_names_the_conf_field() -> None:
    with pytest.raises(ManifestError) as caught:
        load_conf_text('actions: "allocate"\ntiers:\n- plugins:\n  - name: nosuch\n')
    assert caught.value.field.startswith("tiers[0].plugins[0]")


def test_conf_with_registered_plugins_round_trips_through_the_configmap() -> None:
    text = 'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
    dumped = dump_loaded(load_conf_text(text))
    assert dumped["metadata"] == {
        "name": "volcano-scheduler-configmap",
        "namespace": "volcano-system",
    }
    assert dumped["data"] == {"volcano-scheduler.conf": text}
    assert dump_loaded(load_manifest(copy.deepcopy(dumped))) == dumped


def test_non_string_label_key_is_refused() -> None:
    with pytest.raises(ManifestError) as caught:
        load_manifest({**QUEUE, "metadata": {"name": "q", "labels": {1: "a"}}})
    assert caught.value.field == "metadata.labels"
