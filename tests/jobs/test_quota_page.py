"""The Quotas page: each namespace's ResourceQuotas used against hard, as each role sees them."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.models import Namespace, Pod, ResourceQuota
from core.quota import reconcile_quotas

pytestmark = pytest.mark.django_db

QUOTAS = "/quotas/"
GI = 1000 * 2**30


def _quota(namespace: str, name: str, hard: dict[str, int]) -> ResourceQuota:
    Namespace.objects.get_or_create(name=namespace)
    return ResourceQuota.objects.create(namespace=namespace, name=name, hard=hard)


def _running(namespace: str, name: str, cpu: str, memory: str) -> None:
    spec = {"containers": [{"name": "main", "image": "busybox",
                            "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}  # fmt: skip
    Pod.objects.create(namespace=namespace, name=name, phase="Running", spec=spec)


def _text(client: Any, url: str = QUOTAS, **headers: str) -> str:
    response = client.get(url, headers=headers)
    assert response.status_code == 200
    return str(html.unescape(response.content.decode()))


def test_used_against_hard_with_a_bar_in_each_resource_unit(
    console_login: Callable[..., Any],
) -> None:
    _quota("team-a", "compute", {"requests.cpu": 4000, "requests.memory": 8 * GI, "pods": 2000})
    _running("team-a", "p1", "3", "2Gi")
    _running("team-a", "p2", "1", "2Gi")
    reconcile_quotas(timezone.now())
    body = _text(console_login("vera", "viewer", ("team-a",)))
    assert "compute" in body
    assert "4 / 4 cores" in body  # requests.cpu: full
    assert "4Gi / 8Gi" in body  # requests.memory: half
    assert "2 / 2 pods" in body
    assert 'aria-valuenow="50.0"' in body
    assert "full: pods, requests.cpu" in body


def test_a_viewer_sees_only_the_quotas_of_granted_namespaces(
    console_login: Callable[..., Any],
) -> None:
    _quota("team-a", "mine", {"pods": 10000})
    _quota("team-b", "theirs", {"pods": 10000})
    body = _text(console_login("vic", "viewer", ("team-a",)))
    assert "mine" in body
    assert "theirs" not in body
    # A namespace the user may not read in the URL shows what they may read, nothing more.
    body = _text(console_login("val", "viewer", ("team-a",)), f"{QUOTAS}?namespace=team-b")
    assert "theirs" not in body
    operator = _text(console_login("otto", "operator"))
    assert "mine" in operator
    assert "theirs" in operator


def test_not_counted_yet_until_the_controller_has_seen_the_quota(
    console_login: Callable[..., Any],
) -> None:
    _quota("team-a", "fresh", {"requests.cpu": 2000})
    body = _text(console_login("olga", "operator"))
    assert "not counted yet" in body
    assert "0 / 2 cores" in body


def test_the_empty_state_says_what_a_quota_is_and_how_to_create_one(
    console_login: Callable[..., Any],
) -> None:
    Namespace.objects.get_or_create(name="team-a")
    viewer = _text(console_login("vera", "viewer", ("team-a",)), f"{QUOTAS}?namespace=team-a")
    assert "No ResourceQuota in namespace team-a." in viewer
    assert "kubectl create quota team-quota -n team-a" in viewer
    assert "YAML editor" not in viewer  # a viewer may not create one
    operator = _text(console_login("olga", "operator"))
    assert "YAML editor" in operator


def test_the_live_region_is_one_query_for_the_quotas_however_many(
    console_login: Callable[..., Any],
) -> None:
    for i in range(12):
        _quota(f"ns-{i % 3}", f"q-{i}", {"pods": 10000, "requests.cpu": 1000})
    client = console_login("olga", "operator")
    body = _text(client, **{"HX-Request": "true", "HX-Target": "quotas-table"})
    assert body.strip().startswith('<div id="quotas-table" data-live="core.resourcequota"')
    with CaptureQueriesContext(connection) as queries:
        client.get(QUOTAS, headers={"HX-Request": "true", "HX-Target": "quotas-table"})
    reads = [q["sql"] for q in queries.captured_queries if "resourcequota" in q["sql"]]
    assert len(reads) == 1


def test_the_navigation_lists_quotas_for_every_role(console_login: Callable[..., Any]) -> None:
    body = _text(console_login("vera", "viewer", ("team-a",)), "/jobs/")
    assert 'href="/quotas/"' in body
