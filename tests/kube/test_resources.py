"""Every resource behaves the Kubernetes way: list with each selector, patch both ways, stale
replace, dry run (create, get, delete and the rest for every served kind:
``tests/kube/test_every_kind.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.test import Client

from tests.kube.api_kit import (
    COMMANDS,
    EVENTS,
    JOBS,
    NODES,
    PODGROUPS,
    PODS,
    PRIORITY_CLASSES,
    QUEUES,
    example,
)


@dataclass(frozen=True)
class Resource:
    name: str
    url: str
    manifest: dict[str, Any]
    # (wire field, value that selects the object, value that selects nothing)
    field_selector: tuple[str, str, str]
    merge_patch: dict[str, Any]
    json_patch: list[dict[str, Any]]
    patched: Callable[[dict[str, Any]], Any]
    has_labels: bool = True
    has_version: bool = True
    needs: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def _labelled(manifest: dict[str, Any]) -> dict[str, Any]:
    manifest["metadata"]["labels"] = {"app": "demo", "tier": "batch"}
    return manifest


def _label_patches() -> dict[str, Any]:
    return {
        "merge_patch": {"metadata": {"labels": {"tier": "merged"}}},
        "json_patch": [{"op": "replace", "path": "/metadata/labels/tier", "value": "merged"}],
        "patched": lambda obj: obj["metadata"]["labels"]["tier"],
    }


JOB = _labelled(example("jobs/nginx-sleep.yaml"))
JOB["spec"]["queue"] = "default"

RESOURCES = [
    Resource(
        "jobs",
        JOBS.format(ns="default"),
        JOB,
        ("spec.queue", "default", "other"),
        **_label_patches(),
    ),
    Resource(
        "queues",
        QUEUES,
        _labelled(example("queues/test.yaml")),
        ("metadata.name", "test", "nope"),
        **_label_patches(),
    ),
    Resource(
        "podgroups",
        PODGROUPS.format(ns="default"),
        _labelled(example("queues/podgroup.yaml")),
        ("spec.queue", "default", "other"),
        **_label_patches(),
    ),
    Resource(
        "priorityclasses",
        PRIORITY_CLASSES,
        _labelled(example("queues/high-priority-class.yaml")),
        ("metadata.name", "high-priority", "low"),
        **_label_patches(),
    ),
    Resource(
        "nodes",
        NODES,
        _labelled(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": "node-1"},
                "status": {"capacity": {"cpu": "4", "memory": "8Gi"}},
            }
        ),
        ("metadata.name", "node-1", "node-2"),
        **_label_patches(),
    ),
    Resource(
        "pods",
        PODS.format(ns="default"),
        _labelled(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "pod-1", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]},
            }
        ),
        ("status.phase", "Pending", "Running"),
        **_label_patches(),
    ),
    Resource(
        "commands",
        COMMANDS.format(ns="default"),
        _labelled(
            {
                "apiVersion": "bus.volcano.sh/v1alpha1",
                "kind": "Command",
                "metadata": {"name": "abort-1", "namespace": "default"},
                "action": "AbortJob",
                "target": {"kind": "Job", "name": "job-1"},
            }
        ),
        ("metadata.name", "abort-1", "abort-2"),
        **_label_patches(),
        # A Command's target must exist (jobs.admission.command).
        needs=[(JOBS.format(ns="default"), JOB)],
    ),
    Resource(
        "events",
        EVENTS.format(ns="default"),
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "pod-1.1", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "pod-1", "namespace": "default"},
            "reason": "Scheduled",
            "message": "assigned to node-1",
            "type": "Normal",
        },
        ("involvedObject.name", "pod-1", "pod-2"),
        merge_patch={"message": "changed"},
        json_patch=[{"op": "replace", "path": "/message", "value": "changed"}],
        patched=lambda obj: obj["message"],
        has_labels=False,
        has_version=False,
    ),
]


def _name(resource: Resource) -> str:
    return str(resource.manifest["metadata"]["name"])


def _prepare(client: Client, resource: Resource) -> None:
    """Create what ``resource``'s example refers to (a Command's target job), once."""
    for url, manifest in resource.needs:
        response = client.post(url, json.dumps(manifest), content_type="application/json")
        assert response.status_code in (201, 409), response.content


def _create(client: Client, resource: Resource) -> Any:
    _prepare(client, resource)
    response = client.post(
        resource.url, json.dumps(resource.manifest), content_type="application/json"
    )
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.name)
def test_list_with_label_and_field_selectors(operator: Client, resource: Resource) -> None:
    _create(operator, resource)
    name = _name(resource)
    field_name, hit, miss = resource.field_selector

    def names(query: str) -> list[str]:
        response = operator.get(f"{resource.url}?{query}")
        assert response.status_code == 200, response.content
        assert response.json()["kind"] == resource.manifest["kind"] + "List"
        return [item["metadata"]["name"] for item in response.json()["items"]]

    assert name in names("")
    assert name in names(f"fieldSelector={field_name}={hit}")
    assert name in names(f"fieldSelector={field_name}=={hit}")
    assert name not in names(f"fieldSelector={field_name}={miss}")
    assert name not in names(f"fieldSelector={field_name}!={hit}")
    assert name in names(f"fieldSelector=metadata.name={name}")
    if resource.has_labels:
        assert name in names("labelSelector=app=demo")
        assert name in names("labelSelector=app==demo,tier!=web")
        assert name not in names("labelSelector=app!=demo")
        assert name in names("labelSelector=tier in (batch,web)")
        assert name not in names("labelSelector=tier notin (batch)")
        assert name in names("labelSelector=app")
        assert name not in names("labelSelector=!app")
        assert name in names("labelSelector=!missing")


def test_unsupported_field_selector_is_400(operator: Client) -> None:
    response = operator.get(f"{QUEUES}?fieldSelector=spec.weight=1")

    assert response.status_code == 400
    assert "field label not supported" in response.json()["message"]


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.name)
def test_merge_patch_and_json_patch(operator: Client, resource: Resource) -> None:
    _create(operator, resource)
    item = f"{resource.url}/{_name(resource)}"

    merged = operator.patch(
        item, json.dumps(resource.merge_patch), content_type="application/merge-patch+json"
    )
    assert merged.status_code == 200, merged.content
    assert resource.patched(merged.json()) == resource.patched(operator.get(item).json())
    operator.delete(item)
    _create(operator, resource)

    patched = operator.patch(
        item, json.dumps(resource.json_patch), content_type="application/json-patch+json"
    )
    assert patched.status_code == 200, patched.content
    assert resource.patched(patched.json()) == resource.patched(operator.get(item).json())
    assert resource.patched(patched.json()) == resource.patched(merged.json())


@pytest.mark.parametrize("resource", [r for r in RESOURCES if r.has_version], ids=lambda r: r.name)
def test_replace_with_a_stale_resource_version_is_409(operator: Client, resource: Resource) -> None:
    stale = _create(operator, resource)
    item = f"{resource.url}/{_name(resource)}"
    operator.patch(
        item, json.dumps(resource.merge_patch), content_type="application/merge-patch+json"
    )

    response = operator.put(item, json.dumps(stale), content_type="application/json")

    assert response.status_code == 409
    assert response.json()["reason"] == "Conflict"
    assert resource.patched(operator.get(item).json()) == "merged"


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.name)
def test_dry_run_create_stores_nothing(operator: Client, resource: Resource) -> None:
    _prepare(operator, resource)
    response = operator.post(
        resource.url + "?dryRun=All",
        json.dumps(resource.manifest),
        content_type="application/json",
    )

    assert response.status_code == 201, response.content
    assert operator.get(f"{resource.url}/{_name(resource)}").status_code == 404


def test_pods_and_events_list_across_namespaces(operator: Client) -> None:
    for resource in RESOURCES:
        if resource.name in ("pods", "events", "jobs", "podgroups", "commands"):
            _create(operator, resource)

    for url in (
        "/api/v1/pods",
        "/api/v1/events",
        "/apis/batch.volcano.sh/v1alpha1/jobs",
        "/apis/scheduling.volcano.sh/v1beta1/podgroups",
        "/apis/bus.volcano.sh/v1alpha1/commands",
    ):
        response = operator.get(url)
        assert response.status_code == 200, url
        assert len(response.json()["items"]) == 1, url


def test_queue_status_subresource_closes_the_queue(operator: Client) -> None:
    _create(operator, RESOURCES[1])

    response = operator.patch(
        f"{QUEUES}/test/status",
        json.dumps({"status": {"state": "Closed"}}),
        content_type="application/merge-patch+json",
    )

    assert response.status_code == 200, response.content
    assert operator.get(f"{QUEUES}/test").json()["status"]["state"] == "Closed"


def test_default_queue_may_not_be_deleted(operator: Client) -> None:
    response = operator.delete(f"{QUEUES}/default")

    assert response.status_code == 403
    assert operator.get(f"{QUEUES}/default").status_code == 200


def test_command_records_who_issued_it(operator: Client) -> None:
    from jobs.models import Command

    _create(operator, next(r for r in RESOURCES if r.name == "commands"))

    issuer = Command.objects.get(name="abort-1").issuer
    assert issuer is not None
    assert issuer.get_username() == "olga"
