"""Each operator change leaves one audit entry (who, when, object, before, after), readable by
operators through the API; writes with nobody acting (controllers) leave none."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.test import Client

from accounts.models import AuditEntry
from core.models import Node
from kube.actor import acting_as
from kubelet.faults import node_cordon
from queues.models import Queue
from tests.kube.api_kit import AUDIT, CONFIGURATIONS, NODES, QUEUES, example_text, token_client

MERGE = "application/merge-patch+json"


def _entries(client: Client, query: str = "") -> list[dict[str, Any]]:
    response = client.get(f"{AUDIT}{query}")
    assert response.status_code == 200, response.content
    return list(response.json()["items"])


def test_queue_weight_change_leaves_one_entry_with_before_and_after(operator: Client) -> None:
    response = operator.patch(
        f"{QUEUES}/default", json.dumps({"spec": {"weight": 5}}), content_type=MERGE
    )
    assert response.status_code == 200

    entries = _entries(operator)

    assert len(entries) == 1
    entry = entries[0]
    assert (entry["user"], entry["action"], entry["kind"], entry["name"]) == (
        "olga",
        "update",
        "Queue",
        "default",
    )
    assert entry["before"] == {"weight": 1}
    assert entry["after"] == {"weight": 5}
    assert entry["time"].endswith("Z")


def test_queue_capability_and_state_changes_are_recorded(operator: Client) -> None:
    operator.patch(
        f"{QUEUES}/default",
        json.dumps({"spec": {"capability": {"cpu": "8"}}}),
        content_type=MERGE,
    )
    operator.patch(
        f"{QUEUES}/default/status", json.dumps({"status": {"state": "Closed"}}), content_type=MERGE
    )

    entries = _entries(operator)

    assert [(e["before"], e["after"]) for e in entries] == [
        ({"state": "Open"}, {"state": "Closed"}),
        ({"capability": {}}, {"capability": {"cpu": "8"}}),
    ]


def test_queue_create_and_delete_are_recorded(operator: Client) -> None:
    operator.post(QUEUES, example_text("queues/test.yaml"), content_type="application/yaml")
    operator.delete(f"{QUEUES}/test")

    actions = [(e["action"], e["name"]) for e in _entries(operator, "?kind=Queue")]

    assert actions == [("delete", "test"), ("create", "test")]


def test_node_cordon_through_the_api_and_the_service_is_recorded(
    operator: Client, make_user: Callable[..., Any]
) -> None:
    Node.objects.create(name="node-1")
    operator.patch(
        f"{NODES}/node-1", json.dumps({"spec": {"unschedulable": True}}), content_type=MERGE
    )
    admin = make_user("ada", "admin")
    with acting_as(admin):
        node_cordon(node=Node.objects.get(name="node-1"), unschedulable=False)

    entries = _entries(operator, "?kind=Node")

    assert [(e["user"], e["before"], e["after"]) for e in entries] == [
        ("ada", {"unschedulable": True}, {"unschedulable": False}),
        ("olga", {"unschedulable": False}, {"unschedulable": True}),
    ]


def test_scheduler_configuration_replace_and_rollback_are_recorded(operator: Client) -> None:
    first = operator.get(f"{CONFIGURATIONS}/active").json()["status"]["version"]
    body = {
        "apiVersion": "scheduler.volcano.sh/v1alpha1",
        "kind": "SchedulerConfiguration",
        "spec": {"conf": example_text("scheduler-conf/preempt-binpack.conf")},
    }
    replaced = operator.put(
        f"{CONFIGURATIONS}/active", json.dumps(body), content_type="application/json"
    )
    assert replaced.status_code == 200, replaced.content
    operator.post(f"{CONFIGURATIONS}/v{first}/activate")

    entries = _entries(operator, "?kind=SchedulerConfiguration")

    second = replaced.json()["status"]["version"]
    assert [(e["action"], e["before"]["version"], e["after"]["version"]) for e in entries] == [
        ("activate", second, first),
        ("activate", first, second),
    ]


def test_writes_with_nobody_acting_are_not_audited(db: None) -> None:
    queue = Queue.objects.get(name="default")
    queue.weight = 9
    queue.save()

    assert not AuditEntry.objects.exists()


def test_refused_change_leaves_no_entry(make_user: Callable[..., Any], operator: Client) -> None:
    viewer = token_client(make_user("vic", "viewer"))

    response = viewer.patch(
        f"{QUEUES}/default", json.dumps({"spec": {"weight": 5}}), content_type=MERGE
    )

    assert response.status_code == 403
    assert _entries(operator) == []


def test_admin_change_is_audited(make_user: Callable[..., Any], operator: Client) -> None:
    admin = make_user("ada", "admin")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client = Client()
    client.force_login(admin)
    queue = Queue.objects.get(name="default")

    response = client.post(
        f"/admin/queues/queue/{queue.pk}/change/",
        {**_admin_form(client, queue.pk), "weight": "4"},
    )

    assert response.status_code == 302, response.content[:2000]
    assert [(e["user"], e["after"]) for e in _entries(operator)] == [("ada", {"weight": 4})]


def _admin_form(client: Client, pk: int) -> dict[str, Any]:
    """Return the admin change form's current values (what a browser would post back)."""
    form = client.get(f"/admin/queues/queue/{pk}/change/").context["adminform"].form
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if value is None:
            continue
        data[name] = field.prepare_value(value) if hasattr(field, "prepare_value") else value
    return data
