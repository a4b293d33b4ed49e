"""What the test of every served kind needs to call the API as kubectl does, from the registry.

A client sending an operator's API token (``Authorization: Bearer``), each kind's collection
path from its registry entry, a way to put a value at a dotted path in a manifest, and the
events of a streaming watch.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import Group
from django.test import Client

from accounts.services import token_create
from kube.registry import Entry
from tests.kube.api_kit import watch_events

__all__ = [
    "NAMESPACE",
    "TABLE",
    "collection_path",
    "entry_id",
    "first_event_of",
    "object_path",
    "operator_client",
    "post",
    "with_value",
]

# What kubectl asks for: a Table, else the plain object.
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
# A namespaced kind's example is created here (it is there from the start).
NAMESPACE = "default"


def entry_id(entry: Entry) -> str:
    """Return ``plural.group`` (``pods`` for the core group): a test id per kind."""
    return entry.resource.qualified


def operator_client(django_user_model: Any, name: str = "olga") -> Client:
    """Return a client sending a fresh API token of a new operator."""
    user = django_user_model.objects.create_user(name, password="unused-pw-" + name)
    user.groups.add(Group.objects.get_or_create(name="operator")[0])
    _, token = token_create(user=user, name="tests")
    return Client(headers={"authorization": f"Bearer {token}"})


def collection_path(entry: Entry) -> str:
    """Return where the kind's objects are listed and created (``default``'s, if namespaced)."""
    resource = entry.resource
    root = f"/apis/{resource.group}/{resource.version}" if resource.group else "/api/v1"
    scope = f"/namespaces/{NAMESPACE}" if resource.namespaced else ""
    return f"{root}{scope}/{resource.plural}"


def object_path(entry: Entry, name: str) -> str:
    """Return the path of one object of the kind."""
    return f"{collection_path(entry)}/{name}"


def post(client: Client, path: str, manifest: Mapping[str, Any]) -> Any:
    """POST ``manifest`` as JSON; return the response."""
    return client.post(path, json.dumps(manifest), content_type="application/json")


def _steps(path: str) -> list[str | int]:
    steps: list[str | int] = []
    for part in path.split("."):
        name, *indexes = re.split(r"\[(\d+)\]", part)
        steps.append(name)
        steps.extend(int(index) for index in indexes if index)
    return steps


def with_value(manifest: Mapping[str, Any], path: str, value: Any) -> dict[str, Any]:
    """Return a copy of ``manifest`` with ``value`` at ``path`` (``spec.tasks[0].replicas``).

    Missing objects on the way are made; a missing list item is an error in the path.
    """
    document: dict[str, Any] = copy.deepcopy(dict(manifest))
    *route, last = _steps(path)
    here: Any = document
    for step in route:
        here = here.setdefault(step, {}) if isinstance(step, str) else here[step]
    here[last] = value
    return document


def first_event_of(response: Any, name: str) -> dict[str, Any]:
    """Return the first event of a watch response about the object ``name``; close the stream.

    The stream is closed here rather than left to the garbage collector, which would end it
    inside whatever request happens to run then.
    """
    try:
        for event in watch_events(response):
            if event["object"]["metadata"]["name"] == name:
                return event
    finally:
        response.close()
    raise AssertionError(f"the watch ended without an event about {name}")
