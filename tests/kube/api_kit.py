"""What the API tests share: the paths of the kinds, Volcano's examples, token clients, watches.

The tests of every app that reach the API through Django's test client use these; the users
in each role they sign in as are fixtures of ``tests/conftest.py`` (``make_user``,
``operator``, ``submitter``, ``viewer``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from django.test import Client

from accounts.services import token_create

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "examples"
JOBS = "/apis/batch.volcano.sh/v1alpha1/namespaces/{ns}/jobs"
QUEUES = "/apis/scheduling.volcano.sh/v1beta1/queues"
PODGROUPS = "/apis/scheduling.volcano.sh/v1beta1/namespaces/{ns}/podgroups"
COMMANDS = "/apis/bus.volcano.sh/v1alpha1/namespaces/{ns}/commands"
PODS = "/api/v1/namespaces/{ns}/pods"
EVENTS = "/api/v1/namespaces/{ns}/events"
NODES = "/api/v1/nodes"
PRIORITY_CLASSES = "/apis/scheduling.k8s.io/v1/priorityclasses"
CONFIGURATIONS = "/apis/scheduler.volcano.sh/v1alpha1/schedulerconfigurations"
AUDIT = "/apis/audit.volcano.sh/v1alpha1/auditentries"


def example(relative: str) -> dict[str, Any]:
    """Return one of Volcano's example manifests (copied into tests/fixtures) as data."""
    data: dict[str, Any] = yaml.safe_load((FIXTURES / relative).read_text())
    return data


def example_text(relative: str) -> str:
    """Return the text of one example file, unchanged."""
    return (FIXTURES / relative).read_text()


def token_client(user: Any) -> Client:
    """Return a client sending a fresh API token of ``user`` as kubectl does."""
    _, token = token_create(user=user, name="tests")
    return Client(headers={"authorization": f"Bearer {token}"})


def watch_events(response: Any) -> Iterator[dict[str, Any]]:
    """Yield each newline-delimited JSON event of a streaming watch response."""
    buffer = b""
    for chunk in response.streaming_content:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)
