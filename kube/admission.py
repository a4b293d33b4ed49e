"""The one place where admission plugs into every API write (create, replace, patch, dry run).

Volcano's webhook rules live in ``jobs.admission`` and ``queues.admission`` and
are reached through each manifest kind's ``admit`` hook, the same hook
``manage.py apply`` and the admin use, so one set of rules serves every entry
point. Admission fills defaults in place and raises ``AdmissionError`` listing
every violation; here each becomes a ``Cause`` with its field path and type.
"""

from __future__ import annotations

from typing import Any

from kube.admission_causes import AdmissionError
from kube.manifest_kinds import Loaded
from kube.status import Cause

__all__ = ["admit", "admit_delete"]


def _causes(exc: AdmissionError) -> list[Cause]:
    return [Cause(c.field, c.message, str(c.reason)) for c in exc.causes]


def admit(loaded: Loaded, old: Any | None, operation: str) -> list[Cause]:
    """Return every admission violation of ``loaded`` (``old``: the stored object on update)."""
    try:
        loaded.kind.admit(loaded, old if operation == "UPDATE" else None)
    except AdmissionError as exc:
        return _causes(exc)
    return []


def admit_delete(instance: Any) -> list[Cause]:
    """Return the reasons ``instance`` may not be deleted (Volcano refuses some queues)."""
    from queues.admission import admit_queue_delete
    from queues.models import Queue

    if not isinstance(instance, Queue):
        return []
    try:
        admit_queue_delete(instance)
    except AdmissionError as exc:
        return _causes(exc)
    return []
