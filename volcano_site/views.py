"""The Overview: the cluster at a glance, live.

Each region of the page is a live fragment; its data is a callable in the context, so a
region's refresh computes only what that region shows (Django templates call callables).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from django.db.models import Count
from django.http import HttpRequest, HttpResponse

from accounts.roles import OPERATORS, role_required, roles_of
from console.charts import base_layout, figure_data
from console.namespaces import current_namespace, restrict
from console.render import render_page
from console.units import pair
from core.models import Event, Pod
from core.pod_issues import STUCK_PENDING
from jobs.models import WAITING_PHASES, Job
from jobs.pod_lists import IssueRow, pod_issue_rollup
from jobs.selectors import wait_reports
from queues.models import Queue
from queues.why import cluster_allocatable
from scheduler.health import health
from scheduler.models import SessionRecord

__all__ = ["overview"]

T = TypeVar("T")
FRAGMENTS = (
    "overview-capacity",
    "overview-jobs",
    "overview-pod-issues",
    "overview-queues",
    "overview-waiting",
    "overview-sessions",
    "overview-events",
    "overview-health",
)


def _lazy(fn: Callable[[], T]) -> Callable[[], T]:
    return cache(fn)


def _capacity(total: dict[str, int]) -> list[dict[str, Any]]:
    """Return per resource: allocatable on ready nodes (``total``), allocated to queues, percent."""
    used: dict[str, int] = {}
    for allocated in Queue.objects.values_list("allocated", flat=True):
        for name, value in (allocated or {}).items():
            used[name] = used.get(name, 0) + int(value)
    rows = []
    for name in sorted(set(total) | set(used), key=lambda n: (n not in ("cpu", "memory"), n)):
        if name == "pods":
            continue
        have, take = total.get(name, 0), used.get(name, 0)
        rows.append({
            "name": name, "amounts": pair(take, have, name),
            "percent": round(100 * take / have, 1) if have else 0.0,
        })  # fmt: skip
    return rows


def _latency_figure(sessions: list[SessionRecord]) -> dict[str, Any]:
    from plotly import graph_objs as go

    ordered = list(reversed(sessions))
    fig = go.Figure(
        go.Scatter(
            x=[s.started_at for s in ordered], y=[round(s.e2e_ms, 2) for s in ordered],
            mode="lines+markers", name="e2e", line={"width": 2}, marker={"size": 4},
            hovertemplate="%{y:.1f} ms<extra></extra>",
        ),
        layout=base_layout(yaxis={"title": {"text": "ms"}, "rangemode": "tozero"}, height=220,
                           showlegend=False),
    )  # fmt: skip
    return figure_data(fig)


@role_required()
def overview(request: HttpRequest) -> HttpResponse:
    """Render the Overview: the scheduler's health, capacity, jobs by phase, pod issues, queues,
    waiting jobs, sessions, events."""
    namespace = current_namespace(request)
    user = request.user
    jobs = restrict(Job.objects.all(), user, namespace)
    allocatable = _lazy(cluster_allocatable)  # one sum over the nodes for the whole page

    def by_phase() -> list[tuple[str, int]]:
        counts = jobs.order_by().values_list("phase").annotate(n=Count("pk"))
        return sorted((phase or "New", n) for phase, n in counts)

    def pod_issues() -> list[IssueRow]:
        return pod_issue_rollup(restrict(Pod.objects.all(), user, namespace), namespace=namespace)

    def waiting() -> list[tuple[Job, Any]]:
        oldest = list(jobs.filter(phase__in=WAITING_PHASES).order_by("created_at", "id")[:10])
        reports = wait_reports(oldest)
        return [(job, reports.get(job.pk)) for job in oldest]

    def waiting_total() -> int:
        return int(jobs.filter(phase__in=WAITING_PHASES).count())

    def sessions() -> list[SessionRecord]:
        return list(SessionRecord.objects.order_by("-started_at", "-pk")[:60])

    def events() -> list[Event]:
        return list(
            restrict(Event.objects.all(), user, namespace).order_by("-last_timestamp", "-id")[:15]
        )

    def queues() -> list[tuple[Queue, float, str]]:
        """Each queue with its dominant share of the cluster (DRF's measure) and resource."""
        total = allocatable()
        rows = []
        for queue in Queue.objects.order_by("-weight", "name")[:20]:
            shares = [(int(v) / total[n], n) for n, v in (queue.allocated or {}).items()
                      if total.get(n) and n != "pods"]  # fmt: skip
            share, resource = max(shares, default=(0.0, ""))
            rows.append((queue, round(100 * share, 1), resource))
        return rows

    context = {
        "capacity": _lazy(lambda: _capacity(allocatable())),
        "by_phase": _lazy(by_phase),
        "pod_issues": _lazy(pod_issues),
        "stuck_minutes": int(STUCK_PENDING.total_seconds() // 60),
        "queues": _lazy(queues),
        "waiting": _lazy(waiting),
        "waiting_total": _lazy(waiting_total),
        "sessions": _lazy(sessions),
        "latency_figure": _lazy(lambda: _latency_figure(sessions())),
        "events": _lazy(events),
        # The verdict for everyone; the problem count for those who can fix them.
        "health": _lazy(lambda: health(full=bool(roles_of(user) & OPERATORS), processes=False)),
    }
    return render_page(request, "console/overview.html", context, fragments=FRAGMENTS)
