"""Fuzzing job manifests, names and quantities: never a 5xx, never a stored object when refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobs.models import Job
from tests.kube.api_kit import JOBS

pytestmark = pytest.mark.django_db

URL = JOBS.format(ns="default")
FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


_UNSET = object()


def _job(
    name: Any = "fuzz", replicas: Any = 1, cpu: Any = "1", extra: Any = _UNSET
) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main", "image": "busybox",
                                 "resources": {"requests": {"cpu": cpu}}}  # fmt: skip
    spec: dict[str, Any] = {"minAvailable": 1, "tasks": [
        {"name": "main", "replicas": replicas, "template": {"spec": {"containers": [container]}}}]}  # fmt: skip
    if extra is not _UNSET:
        spec["extra"] = extra  # an unknown field: always refused
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}  # fmt: skip


def _post(client: Client, body: Any) -> int:
    response = client.post(URL, json.dumps(body), content_type="application/json")
    assert response.status_code < 500, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    if response.status_code != 201:
        assert not Job.objects.exists()
    Job.objects.all().delete()
    return int(response.status_code)


@FUZZ
@given(name=st.text(max_size=70) | st.integers() | st.none())
def test_any_name(operator: Client, name: Any) -> None:
    _post(operator, _job(name=name))


@FUZZ
@given(cpu=st.text(max_size=12) | st.integers() | st.floats() | st.none())
def test_any_quantity(operator: Client, cpu: Any) -> None:
    _post(operator, _job(cpu=cpu))


@FUZZ
@given(replicas=st.integers() | st.text(max_size=5) | st.floats(allow_nan=False))
def test_any_replicas(operator: Client, replicas: Any) -> None:
    _post(operator, _job(replicas=replicas))


@FUZZ
@given(extra=JSONISH)
def test_any_unknown_content(operator: Client, extra: Any) -> None:
    assert _post(operator, _job(extra=extra)) in (400, 422)
