"""The HTTP client: bearer token, Status errors, paging, unreachable servers (no Django server)."""

from __future__ import annotations

import json
import urllib.error

import pytest

from tests.vcctl.fake_server_kit import FakeServer
from vcctl.client import (
    ApiError,
    Client,
    Connection,
    ConnectionFailedError,
    resolve_connection,
)


def client_for(server: FakeServer, token: str = "s3cret") -> Client:
    return Client(Connection("http://api.example:8000", token), opener=server)


def test_calls_carry_the_bearer_token_and_json_content_type():
    server = FakeServer([(201, {"kind": "Queue"})])
    client_for(server).create("/apis/scheduling.volcano.sh/v1beta1/queues", {"kind": "Queue"})
    request = server.requests[0]
    assert request.get_method() == "POST"
    assert request.full_url == "http://api.example:8000/apis/scheduling.volcano.sh/v1beta1/queues"
    assert request.get_header("Authorization") == "Bearer s3cret"
    assert request.get_header("Content-type") == "application/json"


def test_merge_patch_uses_the_merge_patch_content_type():
    server = FakeServer([(200, {})])
    client_for(server).merge_patch("/q/x", {"spec": {"weight": 3}})
    assert server.requests[0].get_header("Content-type") == "application/merge-patch+json"
    assert json.loads(server.requests[0].data) == {"spec": {"weight": 3}}


def test_no_token_sends_no_authorization_header():
    server = FakeServer([(200, {})])
    client_for(server, token="").get("/x")
    assert server.requests[0].get_header("Authorization") is None


def test_status_error_reads_like_kubectl_and_lists_field_causes():
    status = {
        "kind": "Status",
        "status": "Failure",
        "reason": "Invalid",
        "code": 422,
        "message": 'Job.batch.volcano.sh "j" is invalid',
        "details": {"causes": [{"field": "spec.minAvailable", "message": "must be >= 0"}]},
    }
    with pytest.raises(ApiError) as caught:
        client_for(FakeServer([(422, status)])).get("/x")
    assert caught.value.code == 422
    assert str(caught.value) == (
        'Error from server (Invalid): Job.batch.volcano.sh "j" is invalid\n'
        "  * spec.minAvailable: must be >= 0"
    )


def test_error_without_status_body_still_names_the_code():
    with pytest.raises(ApiError, match=r"\(NotFound\): GET /nope answered HTTP 404"):
        client_for(FakeServer([(404, b"<html>not found</html>")])).get("/nope")


def test_list_all_follows_continue_tokens_and_joins_pages():
    pages = [
        (200, {"kind": "JobList", "metadata": {"continue": "t1"}, "items": [{"n": 1}]}),
        (200, {"kind": "JobList", "metadata": {"continue": ""}, "items": [{"n": 2}]}),
    ]
    server = FakeServer(pages)
    listing = client_for(server).list_all("/jobs", {"fieldSelector": "spec.queue=q"})
    assert listing == {"kind": "JobList", "metadata": {}, "items": [{"n": 1}, {"n": 2}]}
    assert "continue=t1" in server.requests[1].full_url
    assert "fieldSelector=spec.queue%3Dq" in server.requests[1].full_url


def test_unreachable_server_is_a_clear_connection_error():
    def refuse(request, timeout):
        raise urllib.error.URLError(ConnectionRefusedError(111, "Connection refused"))

    client = Client(Connection("http://127.0.0.1:9"), opener=refuse)
    with pytest.raises(
        ConnectionFailedError, match=r"cannot connect to the server at http://127\.0\.0\.1:9"
    ):
        client.get("/x")


def test_connection_comes_from_flags_then_environment_then_localhost():
    env = {"VOLCANO_SERVER": "https://vc.example", "VOLCANO_TOKEN": "t-env"}
    assert resolve_connection(None, None, environ=env) == Connection("https://vc.example", "t-env")
    assert resolve_connection("h:81/", "t", environ=env) == Connection("http://h:81", "t")
    assert resolve_connection(None, None, environ={}).server == "http://127.0.0.1:8000"
    with pytest.raises(ConnectionFailedError, match="use http:// or https://"):
        resolve_connection("ftp://x", None, environ={})
    assert resolve_connection(None, " vct_abc\n", environ={}).token == "vct_abc"
    with pytest.raises(ConnectionFailedError, match="invalid token: it contains spaces"):
        resolve_connection(None, "objects imported\n\nvct_abc", environ={})
