"""The audit page: every operator change, filterable, each with its before and after.

Entries are written where the changes happen (``accounts.audit``: queues and
nodes by signal, configurations by their services, faults and bulk job actions by theirs);
this page only reads them. Operators and admins read it, as the API's ``auditentries`` rule
says; a multi-line value (a configuration's text) is shown as a unified diff.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from accounts.models import AuditEntry
from accounts.roles import ADMIN, OPERATOR, role_required
from console.links import console_url
from console.render import render_page
from console.tables import Table

__all__ = ["AuditRow", "audit_log", "changes_of"]

FILTERS = ("kind", "name", "actor", "action", "since")
SINCE = {"1h": timedelta(hours=1), "24h": timedelta(days=1), "7d": timedelta(days=7)}
SORTS = {"when": ("created_at", "id")}


@dataclass(frozen=True, slots=True)
class Change:
    """One field of an entry: its value before and after, or a unified diff of long text."""

    field: str
    before: Any
    after: Any
    diff: list[str]


@dataclass(frozen=True, slots=True)
class AuditRow:
    """An entry and its field changes."""

    entry: AuditEntry
    changes: list[Change]
    link: str | None = None  # the object's console page (a deleted job's says so)


def changes_of(before: Any, after: Any) -> list[Change]:
    """Return the fields an entry changed (every field for a create or a delete)."""
    old = before if isinstance(before, dict) else ({} if before is None else {"value": before})
    new = after if isinstance(after, dict) else ({} if after is None else {"value": after})
    changes = []
    for key in [*old, *(k for k in new if k not in old)]:
        b, a = old.get(key), new.get(key)
        diff: list[str] = []
        if (isinstance(b, str) and "\n" in b) or (isinstance(a, str) and "\n" in a):
            diff = list(
                difflib.unified_diff(
                    (b or "").splitlines(), (a or "").splitlines(), "before", "after", lineterm=""
                )
            )[2:]
        changes.append(Change(key, b, a, diff))
    return changes


@role_required(OPERATOR, ADMIN)
def audit_log(request: HttpRequest) -> HttpResponse:
    """Render the audit log, newest first, filtered from the URL."""
    filters = {name: request.GET.get(name, "").strip() for name in FILTERS}
    entries = AuditEntry.objects.all()
    if filters["kind"]:
        entries = entries.filter(kind=filters["kind"])
    if filters["name"]:
        entries = entries.filter(name__icontains=filters["name"])
    if filters["actor"]:
        entries = entries.filter(actor_name=filters["actor"])
    if filters["action"]:
        entries = entries.filter(action=filters["action"])
    if filters["since"] in SINCE:
        entries = entries.filter(created_at__gte=timezone.now() - SINCE[filters["since"]])
    table = Table.from_request(request, sorts=SORTS, default="-when")
    page = table.paginate(entries)
    context = {
        "table": table,
        "page": page,
        "rows": [
            AuditRow(e, changes_of(e.before, e.after), console_url(e.kind, e.name))
            for e in page.object_list
        ],
        "filters": filters,
        "kinds": sorted(set(AuditEntry.objects.values_list("kind", flat=True).distinct())),
        "actions": sorted(set(AuditEntry.objects.values_list("action", flat=True).distinct())),
        "actors": sorted(set(AuditEntry.objects.values_list("actor_name", flat=True).distinct())),
    }
    return render_page(request, "console/audit.html", context, fragments=("audit-table",))
