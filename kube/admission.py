"""The one place where admission plugs into every API write (create, replace, patch, dry run).

Volcano's webhook rules live in ``jobs.admission`` and ``queues.admission`` and
are reached through each manifest kind's ``admit`` hook, the same hook
``manage.py apply`` and the admin use, so one set of rules serves every entry
point. Admission fills defaults in place and raises ``AdmissionError`` listing
every violation; here each becomes a ``Cause`` with its field path and type.

Beside the kinds' own rules: the admission plugins apps register (``run_plugins``; core's
NamespaceLifecycle) see every create and update first, and a kind's ``Entry.admit_delete``
may refuse a deletion (Volcano keeps a queue that holds jobs).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kube import registry
from kube.admission_causes import AdmissionError
from kube.manifest_kinds import Loaded
from kube.resources import Resource
from kube.status import Cause

__all__ = ["admit", "admit_delete", "run_plugins"]


def _causes(exc: AdmissionError) -> list[Cause]:
    return [Cause(c.field, c.message, str(c.reason)) for c in exc.causes]


def run_plugins(resource: Resource, manifest: Mapping[str, Any], operation: str) -> None:
    """Run every registered admission plugin on ``manifest``; the first to refuse raises."""
    for plugin in registry.admission_plugins():
        plugin(resource, manifest, operation)


def admit(loaded: Loaded, old: Any | None, operation: str) -> list[Cause]:
    """Return every admission violation of ``loaded`` (``old``: the stored object on update)."""
    try:
        loaded.kind.admit(loaded, old if operation == "UPDATE" else None)
    except AdmissionError as exc:
        return _causes(exc)
    return []


def admit_delete(instance: Any) -> list[Cause]:
    """Return the reasons ``instance`` may not be deleted (its kind's ``admit_delete``)."""
    entry = registry.entry_for_model(type(instance))
    if entry is None or entry.admit_delete is None:
        return []
    try:
        entry.admit_delete(instance)
    except AdmissionError as exc:
        return _causes(exc)
    return []
