"""PodGroup networkTopology/subGroupPolicy and Queue affinity: stored and served as given (with
the CRD's defaults), refused at the field's path, and kept by the queue editor's form."""

from __future__ import annotations

import copy
import html
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from queues.models import PodGroup, Queue
from queues.services import spec_fingerprint
from tests.kube.api_kit import AUDIT, PODGROUPS, QUEUES

pytestmark = pytest.mark.django_db

BOTH = (
    "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"
)
AFFINITY = {
    "nodeGroupAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": ["group-a"],
        "preferredDuringSchedulingIgnoredDuringExecution": ["group-c", "group-b"],
    },
    "nodeGroupAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": ["group-x"]},
}


def pod_group(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "pg", "namespace": "default"},
        "spec": {"minMember": 2, "queue": "default", **spec},
    }


def queue(name: str = "ng", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name},
        "spec": {"weight": 1, **spec},
    }


def send(client: Client, method: str, path: str, body: dict[str, Any]) -> Any:
    call = getattr(client, method)
    return call(path, json.dumps(body), content_type="application/json")


def causes(response: Any) -> list[tuple[str, str, str]]:
    assert response.status_code == 422, response.content
    return [(c["field"], c["reason"], c["message"]) for c in response.json()["details"]["causes"]]


# -- PodGroup -------------------------------------------------------------------------------

GROUPS = PODGROUPS.format(ns="default")


def test_pod_group_topology_fields_round_trip_with_the_crds_defaults(operator: Client) -> None:
    policies = [
        {
            "name": "worker",
            "networkTopology": {"mode": "soft"},
            "subGroupSize": 4,
            "minSubGroups": 2,
            "labelSelector": {
                "matchLabels": {"volcano.sh/task-spec": "worker"},
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["gpu"]}],
            },
            "matchLabelKeys": ["volcano.sh/partition-id", "rack"],
        },
        {"name": "ps"},
    ]
    topology = {"highestTierName": "spine"}
    created = send(
        operator, "post", GROUPS, pod_group(networkTopology=topology, subGroupPolicy=policies)
    )
    assert created.status_code == 201, created.content

    spec = operator.get(f"{GROUPS}/pg").json()["spec"]

    assert spec["networkTopology"] == {"mode": "hard", "highestTierName": "spine"}
    assert spec["subGroupPolicy"] == [
        policies[0],
        {"name": "ps", "subGroupSize": 1, "minSubGroups": 0},
    ]
    assert PodGroup.objects.get(name="pg").sub_group_policy == spec["subGroupPolicy"]


SG = "spec.subGroupPolicy"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            {"networkTopology": {"mode": "strict"}},
            [("spec.networkTopology.mode", "FieldValueNotSupported", "'strict'")],
        ),
        (
            {"networkTopology": {"highestTierAllowed": 2, "highestTierName": "leaf"}},
            [("spec.networkTopology", "FieldValueForbidden", BOTH)],
        ),
        (
            {"subGroupPolicy": [{"name": "a", "subGroupSize": 0, "minSubGroups": -1}]},
            [
                (
                    f"{SG}[0].subGroupSize",
                    "FieldValueInvalid",
                    "must be greater than or equal to 1",
                ),
                (
                    f"{SG}[0].minSubGroups",
                    "FieldValueInvalid",
                    "must be greater than or equal to 0",
                ),
            ],
        ),
        (
            {
                "subGroupPolicy": [
                    {"name": "a"},
                    {
                        "name": "b",
                        "networkTopology": {"highestTierAllowed": 1, "highestTierName": "x"},
                    },
                    {
                        "name": "c",
                        "networkTopology": {"highestTierAllowed": 1, "highestTierName": "x"},
                    },
                ]
            },
            [(f"{SG}[1].networkTopology", "FieldValueForbidden", f"in subGroupPolicy 'b': {BOTH}")],
        ),
        (
            {
                "networkTopology": {"highestTierAllowed": 2, "highestTierName": "leaf"},
                "subGroupPolicy": [
                    {
                        "name": "a",
                        "networkTopology": {"highestTierAllowed": 1, "highestTierName": "x"},
                    }
                ],
            },
            [
                ("spec.networkTopology", "FieldValueForbidden", BOTH),
                (
                    f"{SG}[0].networkTopology",
                    "FieldValueForbidden",
                    f"in subGroupPolicy 'a': {BOTH}",
                ),
            ],
        ),
        (
            {"subGroupPolicy": [{"networkTopology": {"highestTierAllowed": -2}}]},
            [(f"{SG}[0].networkTopology.highestTierAllowed", "FieldValueInvalid", "-2")],
        ),
        (
            {"subGroupPolicy": [{"name": "n" * 254}]},
            [(f"{SG}[0].name", "FieldValueTooLong", "253")],
        ),
        (
            {"subGroupPolicy": [{"matchLabelKeys": ["rack", 7]}]},
            [(f"{SG}[0].matchLabelKeys[1]", "FieldValueInvalid", "expected a string")],
        ),
        (
            {
                "subGroupPolicy": [
                    {"labelSelector": {"matchExpressions": [{"key": "k", "operator": "Near"}]}}
                ]
            },
            [(f"{SG}[0].labelSelector.matchExpressions[0].operator", "FieldValueInvalid", "Near")],
        ),
        (
            {"subGroupPolicy": [{"size": 2}]},
            [(f"{SG}[0].size", "FieldValueInvalid", "unknown field")],
        ),
    ],
    ids=[
        "mode",
        "both",
        "minimums",
        "sub-both-first-only",
        "group-and-sub-both",
        "sub-tier",
        "long-name",
        "label-keys",
        "operator",
        "unknown",
    ],
)
def test_a_bad_pod_group_is_422_at_its_field(
    operator: Client, spec: dict[str, Any], expected: list[tuple[str, str, str]]
) -> None:
    found = causes(send(operator, "post", GROUPS, pod_group(**spec)))

    assert [(field, reason) for field, reason, _ in found] == [(f, r) for f, r, _ in expected]
    for (_, _, message), (_, _, part) in zip(found, expected, strict=True):
        assert part in message
    assert not PodGroup.objects.exists()


def test_an_update_is_held_to_the_schema_but_not_to_the_create_only_webhook(
    operator: Client,
) -> None:
    assert (
        send(operator, "post", GROUPS, pod_group(subGroupPolicy=[{"name": "a"}])).status_code == 201
    )
    stored = operator.get(f"{GROUPS}/pg").json()

    bad = copy.deepcopy(stored)
    bad["spec"]["subGroupPolicy"][0]["subGroupSize"] = 0
    refused = send(operator, "put", f"{GROUPS}/pg", bad)
    both = copy.deepcopy(stored)
    both["spec"]["networkTopology"] = {"highestTierAllowed": 1, "highestTierName": "leaf"}
    accepted = send(operator, "put", f"{GROUPS}/pg", both)

    assert [f for f, _, _ in causes(refused)] == [f"{SG}[0].subGroupSize"]
    assert accepted.status_code == 200, accepted.content
    assert PodGroup.objects.get(name="pg").network_topology == {
        "mode": "hard",
        "highestTierAllowed": 1,
        "highestTierName": "leaf",
    }


# -- Queue ----------------------------------------------------------------------------------


def test_queue_affinity_round_trips_in_its_order(operator: Client) -> None:
    assert send(operator, "post", QUEUES, queue(affinity=AFFINITY)).status_code == 201

    spec = operator.get(f"{QUEUES}/ng").json()["spec"]

    assert spec["affinity"] == AFFINITY
    assert list(
        spec["affinity"]["nodeGroupAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    ) == [
        "group-c",
        "group-b",
    ]
    assert Queue.objects.get(name="ng").affinity == AFFINITY


def test_a_queue_without_affinity_shows_none(operator: Client) -> None:
    assert send(operator, "post", QUEUES, queue()).status_code == 201
    assert "affinity" not in operator.get(f"{QUEUES}/ng").json()["spec"]


AFF = "spec.affinity"
REQ = "requiredDuringSchedulingIgnoredDuringExecution"


@pytest.mark.parametrize(
    ("affinity", "field", "part"),
    [
        (
            {"nodeGroupAffinity": {REQ: "group-a"}},
            f"{AFF}.nodeGroupAffinity.{REQ}",
            "expected an array",
        ),
        (
            {"nodeGroupAntiAffinity": {REQ: [1]}},
            f"{AFF}.nodeGroupAntiAffinity.{REQ}[0]",
            "expected a string",
        ),
        ({"nodeAffinity": {}}, f"{AFF}.nodeAffinity", "unknown field"),
        (
            {"nodeGroupAffinity": {"required": ["a"]}},
            f"{AFF}.nodeGroupAffinity.required",
            "unknown field",
        ),
        (["group-a"], AFF, "expected an object"),
    ],
    ids=["not-a-list", "not-strings", "unknown-kind", "unknown-rule", "not-an-object"],
)
def test_a_bad_queue_affinity_is_422_at_its_field(
    operator: Client, affinity: Any, field: str, part: str
) -> None:
    found = causes(send(operator, "post", QUEUES, queue(affinity=affinity)))

    assert [f for f, _, _ in found] == [field]
    assert part in found[0][2]
    assert not Queue.objects.filter(name="ng").exists()


def _editor_post(stored: Queue, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "source": "form", "name": stored.name, "parent": stored.parent, "weight": stored.weight,
        "priority": stored.priority, "dequeue_strategy": stored.dequeue_strategy,
        "reclaimable": "on", "resource_version": stored.resource_version,
        "spec": spec_fingerprint(stored),
    }  # fmt: skip
    data.update(changes)
    return data


@pytest.mark.parametrize("with_yaml", [False, True], ids=["form-only", "form-and-yaml-view"])
def test_saving_the_queue_form_keeps_the_affinity_it_has_no_input_for(
    operator: Client, console_login: Callable[..., Client], with_yaml: bool
) -> None:
    assert send(operator, "post", QUEUES, queue(affinity=AFFINITY)).status_code == 201
    stored = Queue.objects.get(name="ng")
    client = console_login("olga-console", "operator")
    changes: dict[str, Any] = {"weight": 4}
    if with_yaml:  # the page's YAML view, as it showed the queue
        page = client.get("/queues/ng/edit/").content.decode()
        assert "nodeGroupAffinity" in page
        text = re.search(r'<textarea id="queue-yaml"[^>]*>(.*?)</textarea>', page, re.S)
        assert text is not None
        changes["yaml"] = html.unescape(text.group(1))

    saved = client.post("/queues/ng/edit/", _editor_post(stored, **changes))

    assert saved.status_code == 302, saved.content.decode()[-2000:]
    stored.refresh_from_db()
    assert (stored.weight, stored.affinity) == (4, AFFINITY)


def test_the_queue_editors_yaml_view_drops_the_affinity_when_the_user_deletes_it(
    operator: Client, console_login: Callable[..., Client]
) -> None:
    assert send(operator, "post", QUEUES, queue(affinity=AFFINITY)).status_code == 201
    stored = Queue.objects.get(name="ng")
    client = console_login("olga-console", "operator")
    text = "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: ng}\nspec: {weight: 2}\n"

    saved = client.post("/queues/ng/edit/", _editor_post(stored, weight=2, yaml=text))

    assert saved.status_code == 302
    stored.refresh_from_db()
    assert stored.affinity is None


def test_who_changed_a_queues_affinity_is_audited(operator: Client) -> None:
    assert send(operator, "post", QUEUES, queue(affinity=AFFINITY)).status_code == 201
    drop_preferred = {
        "nodeGroupAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": None}
    }

    response = operator.patch(
        f"{QUEUES}/ng",
        json.dumps({"spec": {"affinity": drop_preferred}}),
        content_type="application/merge-patch+json",
    )

    assert response.status_code == 200, response.content
    narrower = {
        "nodeGroupAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": ["group-a"]},
        "nodeGroupAntiAffinity": AFFINITY["nodeGroupAntiAffinity"],
    }
    assert Queue.objects.get(name="ng").affinity == narrower
    entries = operator.get(AUDIT).json()["items"]
    update = next(e for e in entries if e["action"] == "update" and e["name"] == "ng")
    assert update["user"] == "olga"
    assert (update["before"], update["after"]) == ({"affinity": AFFINITY}, {"affinity": narrower})


def _admin_queue(affinity: str) -> dict[str, Any]:
    return {
        "name": "ng", "weight": 1, "capability": "", "deserved": "", "guarantee": "",
        "reclaimable": "on", "parent": "", "priority": 0, "dequeue_strategy": "traverse",
        "labels": "{}", "annotations": "{}", "affinity": affinity,
    }  # fmt: skip


def test_the_admin_refuses_a_misshapen_affinity_naming_the_field(superuser_client: Client) -> None:
    bad = json.dumps({"nodeGroupAffinity": {REQ: "group-a"}})

    refused = superuser_client.post("/admin/queues/queue/add/", _admin_queue(bad))
    saved = superuser_client.post("/admin/queues/queue/add/", _admin_queue(json.dumps(AFFINITY)))

    assert refused.status_code == 200
    assert f"spec.affinity.nodeGroupAffinity.{REQ}: expected an array" in html.unescape(
        refused.content.decode()
    )
    assert saved.status_code == 302
    assert Queue.objects.get(name="ng").affinity == AFFINITY


def test_the_admin_refuses_a_pod_group_with_a_misshapen_topology(superuser_client: Client) -> None:
    data = {
        "name": "pg", "namespace": "default", "min_member": 1, "min_task_member": "{}",
        "min_resources": "", "queue": "default", "priority_class_name": "",
        "labels": "{}", "annotations": "{}", "owner_references": "[]", "finalizers": "[]",
        "network_topology": json.dumps({"highestTierAllowed": "1"}),
        "sub_group_policy": json.dumps([{"subGroupSize": 0}]),
    }  # fmt: skip

    refused = superuser_client.post("/admin/queues/podgroup/add/", data)

    page = html.unescape(refused.content.decode())
    assert refused.status_code == 200
    assert "spec.networkTopology.highestTierAllowed: expected an integer" in page
    assert "spec.subGroupPolicy[0].subGroupSize: 0: must be greater than or equal to 1" in page
    assert not PodGroup.objects.exists()
