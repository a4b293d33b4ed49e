"""Pods in trouble, by kind of trouble: the console's "pod issues" roll-up and its filters.

Each issue is one ``Q`` on the Pod table, so the roll-up counts every issue in one aggregate
query and the Pods list narrowed to an issue (``?issue=crashloop``) shows exactly the pods
counted: the number and the page behind its link cannot disagree.

The issues, as ``kubectl get pods`` shows them:

- ``crashloop``: a Running pod whose container crashed and waits to restart, its status
  ``waiting: CrashLoopBackOff`` (``core.manifests.pod_status``: phase Running and
  ``back_off_until`` set, as the simulated kubelet leaves it between restarts).
- ``evicted``: a pod the scheduler or an operator evicted (reason ``Evicted``), while it stops
  and until its job's controller removes it.
- ``failed``: phase Failed for any other reason (exit code, node lost); the evicted ones end
  Failed too but are counted once, as evicted, so the four counts add up.
- ``pending``: Pending and not being deleted for longer than ``STUCK_PENDING`` of the
  simulated clock (``kube.failpoints.now``) since it was created: gangs that wait for room
  are normal for a moment; five minutes is when someone should look.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from core.models import Pod, PodPhase
from kube.failpoints import now as clock

__all__ = ["ISSUES", "STUCK_PENDING", "issue_counts", "issue_filter", "issue_labels"]

STUCK_PENDING = timedelta(minutes=5)
ISSUES = ("crashloop", "failed", "pending", "evicted")
EVICTED = "Evicted"


def issue_labels() -> Mapping[str, str | Promise]:
    """Return each issue's label, as the roll-up and the Pods list's filter name it."""
    return {
        "crashloop": _("CrashLoopBackOff"),
        "failed": _("Failed"),
        "pending": _("Stuck pending"),
        "evicted": _("Evicted"),
    }


def issue_filter(issue: str, *, now: datetime | None = None) -> Q | None:
    """Return the ``Q`` selecting the pods with ``issue`` (None for an unknown issue)."""
    if issue == "crashloop":
        return Q(phase=PodPhase.RUNNING, back_off_until__isnull=False)
    if issue == "evicted":
        return Q(reason=EVICTED)
    if issue == "failed":
        return Q(phase=PodPhase.FAILED) & ~Q(reason=EVICTED)
    if issue == "pending":
        since = (now or clock()) - STUCK_PENDING
        return Q(phase=PodPhase.PENDING, deletion_time__isnull=True, created_at__lte=since)
    return None


def issue_counts(pods: QuerySet[Pod], *, now: datetime | None = None) -> dict[str, int]:
    """Return how many of ``pods`` have each issue, in one aggregate query (zeros included)."""
    moment = now or clock()
    aggregates: dict[str, Any] = {}
    for issue in ISSUES:
        condition = issue_filter(issue, now=moment)
        aggregates[issue] = Count("pk", filter=condition)
    counts = pods.order_by().aggregate(**aggregates)
    return {issue: int(counts[issue] or 0) for issue in ISSUES}
