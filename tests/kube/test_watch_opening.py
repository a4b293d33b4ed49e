"""A watch answers its status and headers as it opens, as kube-apiserver does, even when it
has nothing to send yet: client-go's reflector waits for them before it can be stopped, so
a server holding them back until the first event kept ``kubectl wait`` and ``kubectl delete``
waiting after their condition held (issue 21)."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

from tests.kube.server_kit import KubeServer

QUIET = "fieldSelector=metadata.name=no-such-pod&timeoutSeconds=60"


def _open_watch(server: KubeServer, query: str) -> http.client.HTTPResponse:
    """Open a pod watch and return once its headers are in (10 s at most, or raise)."""
    where = urlsplit(server.url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=10)
    connection.request(
        "GET",
        f"/api/v1/namespaces/quiet-watch/pods?watch=1&{query}",
        headers={"Authorization": f"Bearer {server.token}"},
    )
    return connection.getresponse()


def test_a_watch_with_nothing_to_send_answers_its_headers_at_once(
    kube_server: KubeServer,
) -> None:
    listed = kube_server.json("GET", "/api/v1/namespaces/quiet-watch/pods?" + QUIET)
    version = listed["metadata"]["resourceVersion"]

    for query in (QUIET, f"{QUIET}&resourceVersion={version}", f"{QUIET}&resourceVersion=0"):
        answer = _open_watch(kube_server, query)
        try:
            assert answer.status == 200
            assert answer.getheader("Content-Type") == "application/json"
        finally:
            answer.close()


def test_a_watch_still_streams_events_after_its_opening(kube_server: KubeServer) -> None:
    answer = _open_watch(kube_server, "fieldSelector=metadata.name=opened-pod&timeoutSeconds=60")
    try:
        kube_server.json(
            "POST",
            "/api/v1/namespaces/quiet-watch/pods",
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "opened-pod"},
                "spec": {"containers": [{"name": "main", "image": "busybox"}]},
            },
        )
        event = json.loads(answer.readline())
    finally:
        answer.close()
        kube_server.call("DELETE", "/api/v1/namespaces/quiet-watch/pods/opened-pod")

    assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "opened-pod")
