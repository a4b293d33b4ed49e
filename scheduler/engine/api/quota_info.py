"""A namespace's ResourceQuota, as the scheduler reads it: its status only.

Volcano's counterpart: ``pkg/scheduler/api/namespace_info.go`` (``NamespaceInfo.QuotaStatus``).
The quota controller turns ``spec.hard`` into ``status.hard`` and keeps ``status.used``; the
scheduler reads only the status, so a quota the controller has not seen yet limits nothing.
Scopes are not supported (Volcano ignores them too).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler.engine.api.resource import Resource

__all__ = ["QuotaInfo"]


@dataclass(slots=True, frozen=True)
class QuotaInfo:
    """One ResourceQuota: ``status.hard`` and ``status.used`` (any resource name, exact)."""

    name: str
    namespace: str
    hard: Resource = field(default_factory=Resource)
    used: Resource = field(default_factory=Resource)

    @property
    def uid(self) -> str:
        """Return ``<namespace>/<name>``."""
        return f"{self.namespace}/{self.name}"
