"""``kubectl get pods -o wide`` asks for a Table: the wide columns kube-apiserver serves for pods."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from core.models import Node, Pod, PodPhase
from tests.kube.api_kit import PODS

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
WIDE = ["IP", "Node", "Nominated Node", "Readiness Gates"]


def _table(client: Client) -> dict[str, Any]:
    answer = client.get(PODS.format(ns="default"), headers={"accept": TABLE})
    assert answer.status_code == 200, answer.content
    table: dict[str, Any] = answer.json()
    assert table["kind"] == "Table"
    return table


def _rows(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    names = [column["name"] for column in table["columnDefinitions"]]
    return {row["cells"][0]: dict(zip(names, row["cells"], strict=True)) for row in table["rows"]}


@pytest.mark.django_db
def test_wide_pod_columns_are_kube_apiservers(operator: Client) -> None:
    definitions = _table(operator)["columnDefinitions"]

    shown = [(column["name"], column["priority"]) for column in definitions]
    assert shown == [
        ("Name", 0),
        ("Ready", 0),
        ("Status", 0),
        ("Restarts", 0),
        ("Age", 0),
        *[(name, 1) for name in WIDE],
    ]


@pytest.mark.django_db
def test_pipelined_pod_shows_its_nominated_node_and_others_none(operator: Client) -> None:
    node = Node.objects.create(name="node-a")
    Pod.objects.create(name="bound", node=node, phase=PodPhase.RUNNING)
    Pod.objects.create(name="pipelined", nominated_node_name="node-b")
    Pod.objects.create(
        name="gated",
        spec={
            "containers": [{"name": "main", "image": "busybox"}],
            "readinessGates": [{"conditionType": "example.com/ready"}, {"conditionType": "x/y"}],
        },
    )

    rows = _rows(_table(operator))

    wide = {name: [rows[name][column] for column in WIDE] for name in rows}
    assert wide == {
        "bound": ["<none>", "node-a", "<none>", "<none>"],
        "pipelined": ["<none>", "<none>", "node-b", "<none>"],
        "gated": ["<none>", "<none>", "<none>", "0/2"],
    }
