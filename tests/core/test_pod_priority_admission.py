"""Kubernetes' Priority admission on bare pods: the class fills ``spec.priority`` and
``spec.preemptionPolicy``, a missing class is refused, and the global default class applies to
a pod that names none; a pod that gives another value than its class's is refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from core.models import Pod, PriorityClass
from tests.kube.api_kit import PODS

pytestmark = pytest.mark.django_db


def _pod(name: str, **spec: Any) -> str:
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "busybox"}], **spec},
    })  # fmt: skip


def _create(client: Client, name: str, **spec: Any) -> Any:
    return client.post(
        PODS.format(ns="default"), _pod(name, **spec), content_type="application/json"
    )


@pytest.fixture
def classes(db: None) -> None:
    PriorityClass.objects.create(name="high-never", value=1000, preemption_policy="Never")
    PriorityClass.objects.create(name="everyday", value=50, global_default=True)


def test_the_class_fills_priority_and_preemption_policy(operator: Client, classes: None) -> None:
    response = _create(operator, "p1", priorityClassName="high-never")

    assert response.status_code == 201, response.content
    spec = response.json()["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (1000, "Never")
    assert Pod.objects.get(name="p1").priority == 1000


def test_a_pod_without_a_class_takes_the_global_default(operator: Client, classes: None) -> None:
    spec = _create(operator, "p2").json()["spec"]

    assert (spec["priorityClassName"], spec["priority"]) == ("everyday", 50)
    assert spec["preemptionPolicy"] == "PreemptLowerPriority"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"priorityClassName": "nope"}, "no PriorityClass with name nope was found"),
        (
            {"priorityClassName": "high-never", "priority": 5},
            "the integer value of priority (5) must not be provided in pod spec; priority admission "
            "controller computed 1000 from the given PriorityClass name",
        ),
        (
            {"priorityClassName": "high-never", "preemptionPolicy": "PreemptLowerPriority"},
            "the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod "
            "spec; priority admission controller computed Never from the given PriorityClass name",
        ),
    ],
    ids=["missing-class", "other-priority", "other-policy"],
)
def test_a_pod_its_class_does_not_allow_is_forbidden(
    operator: Client, classes: None, spec: dict[str, Any], message: str
) -> None:
    response = _create(operator, "refused", **spec)

    assert response.status_code == 403, response.content
    assert response.json()["message"] == f'pods "refused" is forbidden: {message}'
    assert not Pod.objects.filter(name="refused").exists()
