"""Fixtures of the API tests: one user per role (with a token), clients that send the token."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.contrib.auth.models import Group
from django.test import Client

from accounts.models import NamespaceGrant
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


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    """Hash test passwords cheaply: the role tables log in dozens of users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_user(db: None, django_user_model: Any) -> Callable[..., Any]:
    """Return a factory of users holding ``role`` and granted ``namespaces``."""

    def make(name: str, role: str | None, namespaces: tuple[str, ...] = ()) -> Any:
        user = django_user_model.objects.create_user(name, password="pw-" + name)
        if role is not None:
            user.groups.add(Group.objects.get(name=role))
        for namespace in namespaces:
            NamespaceGrant.objects.create(user=user, namespace=namespace)
        return user

    return make


@pytest.fixture
def operator(make_user: Callable[..., Any]) -> Client:
    """Return a client of an operator (every namespace, queues, nodes, configuration)."""
    return token_client(make_user("olga", "operator"))


@pytest.fixture
def submitter(make_user: Callable[..., Any]) -> Client:
    """Return a client of a submitter granted the ``default`` namespace."""
    return token_client(make_user("sam", "submitter", ("default",)))


@pytest.fixture
def viewer(make_user: Callable[..., Any]) -> Client:
    """Return a client of a viewer granted the ``default`` namespace."""
    return token_client(make_user("vera", "viewer", ("default",)))


def watch_events(response: Any) -> Iterator[dict[str, Any]]:
    """Yield each newline-delimited JSON event of a streaming watch response."""
    buffer = b""
    for chunk in response.streaming_content:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)
