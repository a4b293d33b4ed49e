"""Every answer under /api and /apis is a Status a Kubernetes client can print, never HTML."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from tests.kube.api_kit import QUEUES

pytestmark = pytest.mark.django_db


def _status(response: Any, code: int) -> dict[str, Any]:
    assert response.status_code == code
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body: dict[str, Any] = json.loads(response.content)
    assert body["kind"] == "Status"
    return body


@pytest.mark.parametrize("path", ["/apis/example.com/v1/widgets", "/api/v1/nonsense", "/apis/x"])
def test_a_post_to_an_unknown_resource_is_a_404_status_not_a_csrf_page(
    path: str, django_user_model: Any
) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(django_user_model.objects.create_user("kim"))  # a session, no token
    _status(client.post(path, "{}", content_type="application/json"), 404)
    _status(Client().post(path, "{}", content_type="application/json"), 404)


def test_a_session_write_without_csrf_is_a_403_status(
    operator: Client, django_user_model: Any
) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(django_user_model.objects.create_user("kim"))
    response = client.post(
        "/apis/scheduling.volcano.sh/v1beta1/queues", "{}", content_type="application/json"
    )
    body = _status(response, 403)
    assert "Bearer" in body["message"] or "CSRF" in body["message"]


def test_a_console_page_still_gets_djangos_csrf_page(django_user_model: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(django_user_model.objects.create_user("kim"))
    response = client.post("/accounts/profile/", {"name": "x"})
    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/html")


def test_a_server_error_under_the_api_is_a_500_status(rf: Any) -> None:
    from kube.fallbacks import server_error

    request = rf.get("/apis/batch.volcano.sh/v1alpha1/jobs")
    _status(server_error(request), 500)


def test_strategic_merge_on_a_custom_resource_is_415_and_multipart_too(operator: Client) -> None:
    body = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": "q1"}, "spec": {"weight": 1}}  # fmt: skip
    assert (
        operator.post(QUEUES, json.dumps(body), content_type="application/json").status_code == 201
    )
    patch = operator.patch(f"{QUEUES}/q1", '{"spec": {"weight": 3}}',
                           content_type="application/strategic-merge-patch+json")  # fmt: skip
    assert _status(patch, 415)["reason"] == "UnsupportedMediaType"
    merge = operator.patch(f"{QUEUES}/q1", '{"spec": {"weight": 3}}',
                           content_type="application/merge-patch+json")  # fmt: skip
    assert merge.status_code == 200
    multipart = operator.post(QUEUES, {"file": "x"})  # the test client sends multipart
    _status(multipart, 415)
