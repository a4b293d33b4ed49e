"""``metadata.generateName`` gets kube-apiserver's suffix: five characters from an alphabet
without vowels or look-alikes, the prefix cut so the name stays within 63 characters."""

from __future__ import annotations

import json
import re

from django.test import Client

from core.models import Pod
from kube.store import generate_name
from tests.kube.api_kit import PODS

SUFFIX = re.compile(r"^[bcdfghjklmnpqrstvwxz2456789]{5}$")


def test_a_generated_name_ends_in_five_kubernetes_characters(operator: Client) -> None:
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "worker-"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}  # fmt: skip

    created = operator.post(
        PODS.format(ns="default"), json.dumps(body), content_type="application/json"
    )

    assert created.status_code == 201, created.content
    name = created.json()["metadata"]["name"]
    assert name.startswith("worker-")
    assert SUFFIX.match(name.removeprefix("worker-")), name
    assert Pod.objects.filter(name=name).exists()


def test_a_long_prefix_is_cut_to_leave_room_for_the_suffix() -> None:
    names = {generate_name("p" * 80) for _ in range(50)}

    assert all(len(name) == 63 and SUFFIX.match(name[58:]) for name in names)
    assert len(names) > 45  # random, not a counter
