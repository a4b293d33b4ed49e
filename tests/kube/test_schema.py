"""The OpenAPI schema describes the API truthfully: schemathesis, driving every documented
operation with generated requests, finds no server error and no answer outside the schema.

Kept bounded (a few examples per operation, generation phase only) so it runs in the suite.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import override_settings
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

# The schema the server serves, loaded through the WSGI app (no database needed for it; the
# schema is for signed-in users unless opened, so it is opened while schemathesis reads it).
with override_settings(VOLCANO_PUBLIC_API_DOCS=True):
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
# Bounded: generated examples only (the coverage phase alone sends ~100 requests per operation).
schema.config.phases.coverage.enabled = False
schema.config.phases.stateful.enabled = False
schema.config.generation.update(max_examples=3)


@pytest.fixture
def _keep_test_connection() -> Iterator[None]:
    """Keep the test's database connection across the WSGI requests schemathesis sends.

    Django's WSGI handler closes old connections at each request's start and end; its test
    Client disconnects that, werkzeug's does not, and on PostgreSQL the closed connection
    would end the test's transaction (SQLite's in-memory one survives).
    """
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def operator_headers(make_user: Callable[..., Any]) -> dict[str, str]:
    """Return the headers of an operator (who may call every operation)."""
    from accounts.services import token_create

    _, token = token_create(user=make_user("sch", "operator"), name="schemathesis")
    return {"Authorization": f"Bearer {token}"}


@schema.parametrize()
@settings(
    max_examples=3,
    phases=[Phase.explicit, Phase.generate],
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@pytest.mark.usefixtures("_keep_test_connection")
def test_api_answers_within_its_schema(case: Any, operator_headers: dict[str, str]) -> None:
    case.call_and_validate(
        headers=operator_headers, checks=[not_a_server_error, response_schema_conformance]
    )


def _api_routes() -> set[str]:
    """Return every resource path the API routes, in OpenAPI's spelling (``{namespace}``)."""
    from django.urls import URLResolver

    from volcano_site import api_urls

    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                module = getattr(pattern.urlconf_name, "__name__", pattern.urlconf_name)
                if module != "kube.urls":  # discovery and OpenAPI: kubectl's
                    yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif pattern.name not in ("schema", "api-docs") and "^" not in str(pattern.pattern):
                yield "/" + prefix + str(pattern.pattern)

    return {re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route) for route in walk(api_urls.urlpatterns, "")}


def test_schema_and_docs_need_a_signed_in_user_unless_opened(
    db: None, django_user_model: Any, settings: Any
) -> None:
    from django.test import Client

    assert Client().get("/api/schema/?format=json").status_code in (401, 403)
    assert Client().get("/api/docs/").status_code in (401, 403)
    client = Client()
    client.force_login(django_user_model.objects.create_user("reader"))
    assert client.get("/api/schema/?format=json").status_code == 200
    settings.VOLCANO_PUBLIC_API_DOCS = True
    assert Client().get("/api/schema/?format=json").status_code == 200


def test_schema_and_docs_pages_list_every_path(db: None, settings: Any) -> None:
    from django.test import Client

    settings.VOLCANO_PUBLIC_API_DOCS = True
    document = Client().get("/api/schema/?format=json").json()
    paths = set(document["paths"])

    assert {
        "/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs",
        "/apis/batch.volcano.sh/v1alpha1/jobs",
        "/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs/{name}/status",
        "/apis/scheduling.volcano.sh/v1beta1/queues/{name}",
        "/apis/scheduling.volcano.sh/v1beta1/namespaces/{namespace}/podgroups",
        "/apis/bus.volcano.sh/v1alpha1/namespaces/{namespace}/commands",
        "/api/v1/nodes",
        "/api/v1/namespaces/{namespace}/pods/{name}/log",
        "/api/v1/namespaces/{namespace}/events",
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        "/apis/scheduler.volcano.sh/v1alpha1/schedulerconfigurations/{name}/activate",
        "/apis/audit.volcano.sh/v1alpha1/auditentries",
    } <= paths
    routes = _api_routes()
    assert len(routes) > 25
    assert routes - paths == set()
    assert (
        "delete" in document["paths"]["/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs"]
    )
    assert Client().get("/api/docs/").status_code == 200


def _asgi_get(path: str) -> tuple[int, dict[bytes, bytes], bytes]:
    """Return (status, headers, body) of ``GET path`` through the ASGI app ``make run`` serves."""
    from asgiref.sync import async_to_sync
    from asgiref.testing import ApplicationCommunicator

    from volcano_site.asgi import application

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"localhost")],
        "client": ("127.0.0.1", 50000),
        "server": ("localhost", 8000),
    }

    async def call() -> tuple[int, dict[bytes, bytes], bytes]:
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": b""})
        start = await communicator.receive_output(10)
        body, more = b"", True
        while more:
            message = await communicator.receive_output(10)
            body += message.get("body", b"")
            more = message.get("more_body", False)
        return start["status"], {k.lower(): v for k, v in start["headers"]}, body

    return async_to_sync(call)()


def test_docs_page_is_self_contained_and_its_assets_are_served(db: None, settings: Any) -> None:
    settings.VOLCANO_PUBLIC_API_DOCS = True
    status, _, page = _asgi_get("/api/docs/")
    assert status == 200
    html = page.decode()
    references = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
    assert references, html
    assert [ref for ref in references if not ref.startswith("/")] == []
    assert "//" not in "".join(references)
    assert '"validatorUrl": null' in html  # Swagger UI would send the schema's URL out
    scripts = re.findall(r"""<script src=["']([^"']+\.js)["']""", html)
    assert any("swagger-ui-bundle" in script for script in scripts)
    for script in scripts:
        status, headers, body = _asgi_get(script)
        assert status == 200, script
        assert b"javascript" in headers[b"content-type"]
        assert len(body) > 1000


EXAMPLE_RESOURCES = [
    ("/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs", "job-1"),
    ("/apis/scheduling.volcano.sh/v1beta1/namespaces/{namespace}/podgroups", "test"),
    ("/apis/scheduling.volcano.sh/v1beta1/queues", "test"),
    ("/apis/scheduling.k8s.io/v1/priorityclasses", "high-priority"),
]


@pytest.mark.usefixtures("_keep_test_connection")
@pytest.mark.parametrize(("collection", "name"), EXAMPLE_RESOURCES)
def test_documented_examples_go_through_their_lifecycle_within_the_schema(
    operator_headers: dict[str, str], collection: str, name: str
) -> None:
    path = {"namespace": "default"} if "{namespace}" in collection else {}
    item = f"{collection}/{{name}}"
    create = schema[collection]["POST"]
    example = create.definition.raw["requestBody"]["content"]["application/json"]["examples"]
    body = next(iter(example.values()))["value"]
    checks = [not_a_server_error, response_schema_conformance]

    def call(operation: Any, expected: int, **kwargs: Any) -> Any:
        case = operation.Case(**kwargs)
        response = case.call_and_validate(headers=operator_headers, checks=checks)
        assert response.status_code == expected, response.text
        return response.json()

    call(create, 201, path_parameters=path, body=body, media_type="application/json")
    stored = call(schema[item]["GET"], 200, path_parameters={**path, "name": name})
    call(
        schema[item]["PUT"],
        200,
        path_parameters={**path, "name": name},
        body=stored,
        media_type="application/json",
    )
    call(
        schema[item]["PATCH"],
        200,
        path_parameters={**path, "name": name},
        body={"metadata": {"labels": {"checked": "yes"}}},
        media_type="application/merge-patch+json",
    )
    call(schema[item]["DELETE"], 200, path_parameters={**path, "name": name})


def test_operation_summaries_use_the_right_article(superuser_client: Any) -> None:
    schema = superuser_client.get("/api/schema/?format=json").json()
    summaries = {
        op["summary"] for item in schema["paths"].values() for op in item.values()
        if isinstance(op, dict) and "summary" in op
    }  # fmt: skip

    assert {"Create an Event", "Create an MPIJob", "Create a Job", "Read an Event"} <= summaries
    assert not {s for s in summaries if s.startswith(("Create a E", "Create a M", "Read a E"))}
