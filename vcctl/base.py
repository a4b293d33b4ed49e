"""What every vcctl command shares: the API paths, the error a user caused, the call context."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any, Protocol

from vcctl.client import Client

__all__ = [
    "BATCH",
    "BUS",
    "SCHEDULING",
    "CliError",
    "Context",
    "Writer",
    "commands_path",
    "controller_ref",
    "events_path",
    "jobs_path",
    "queues_path",
]

BATCH = "batch.volcano.sh/v1alpha1"
SCHEDULING = "scheduling.volcano.sh/v1beta1"
BUS = "bus.volcano.sh/v1alpha1"


class Writer(Protocol):
    """Where output goes: a text stream (``sys.stdout``) or Django's ``OutputWrapper``."""

    def write(self, msg: str, /) -> Any: ...


class CliError(Exception):
    """A mistake in the command line itself (a missing ``--name``, a bad ``--requests``)."""


@dataclass(frozen=True, slots=True)
class Context:
    """One command's client and output streams."""

    client: Client
    stdout: Writer
    stderr: Writer


def _quote(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


def jobs_path(namespace: str | None, name: str | None = None) -> str:
    """Return the Jobs collection (all namespaces when ``namespace`` is None) or one job."""
    if namespace is None:
        return f"/apis/{BATCH}/jobs"
    path = f"/apis/{BATCH}/namespaces/{_quote(namespace)}/jobs"
    return f"{path}/{_quote(name)}" if name else path


def queues_path(name: str | None = None) -> str:
    """Return the (cluster-scoped) Queues collection or one queue."""
    path = f"/apis/{SCHEDULING}/queues"
    return f"{path}/{_quote(name)}" if name else path


def commands_path(namespace: str) -> str:
    """Return the bus Commands collection of ``namespace``."""
    return f"/apis/{BUS}/namespaces/{_quote(namespace)}/commands"


def events_path(namespace: str) -> str:
    """Return the core Events collection of ``namespace``."""
    return f"/api/v1/namespaces/{_quote(namespace)}/events"


def controller_ref(obj: dict[str, Any], *, api_version: str, kind: str) -> dict[str, Any]:
    """Return the owner reference a Command points at its target with (metav1.NewControllerRef)."""
    metadata = obj.get("metadata") or {}
    ref: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "name": metadata.get("name")}
    if metadata.get("uid"):
        ref["uid"] = metadata["uid"]
    return {**ref, "controller": True, "blockOwnerDeletion": True}


def command_body(target: dict[str, Any], action: str, *, namespace: str) -> dict[str, Any]:
    """Return a bus Command asking the controller to apply ``action`` to ``target``.

    As vcctl does, the server picks the name (``generateName`` = ``<target>-<action>-``).
    """
    name = target["name"]
    return {
        "apiVersion": BUS,
        "kind": "Command",
        "metadata": {"generateName": f"{name}-{action.lower()}-", "namespace": namespace},
        "action": action,
        "target": target,
    }
