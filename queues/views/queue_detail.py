"""A queue's page: its figures, its waiting jobs in the engine's order, its history; actions."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import yaml
from django.contrib import messages
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import can, role_required
from console.charts import figure_data
from console.render import render_page
from console.time_range import TimeRange, time_range
from jobs.models import Job
from kube.admission_causes import AdmissionError
from monitoring.history import QueueSeries
from monitoring.sources import current_source
from queues.charts import queue_share_history_figure
from queues.manifests import QueueKind
from queues.models import Queue
from queues.selectors import QueueRow, queue_audit, queue_line, shown_resources
from queues.services import queue_close, queue_delete, queue_open
from queues.share_status import StoredShare

__all__ = ["queue_action", "queue_detail", "why_not_deletable"]

ACTIONS = ("open", "close", "delete")


def why_not_deletable(queue: Queue) -> list[str]:
    """Return every reason the console refuses to delete ``queue`` (empty: it may go).

    Volcano's webhook refuses ``default``, ``root`` and queues with children; the console also
    refuses a queue that still holds jobs, whose PodGroups would be left pointing nowhere.
    """
    reasons: list[str] = []
    if queue.is_protected:
        reasons.append(_("Volcano never deletes the %(name)s queue.") % {"name": queue.name})
    children = sorted(Queue.objects.filter(parent=queue.name).values_list("name", flat=True))
    if children:
        reasons.append(_("It has child queues: %(names)s.") % {"names": ", ".join(children)})
    jobs = Job.objects.filter(queue=queue.name).count()
    if jobs:
        reasons.append(
            _("It holds %(n)d job(s): delete them or wait until they are gone.") % {"n": jobs}
        )
    return reasons


TAIL_POINTS = 120  # the newest per-session samples appended to a coarser series, at most


def _series(resource: str, span: TimeRange) -> QueueSeries:
    """Return every queue's allocated and deserved over ``span``, newest samples included.

    The tier the range picks (per minute for an hour) holds only whole buckets, rolled up
    once a minute; the per-session samples after its last bucket are appended (every k-th
    when there are more than ``TAIL_POINTS``), so a fresh cluster draws within a session.
    """
    source = current_source()
    fields = ("allocated", "deserved")
    series = source.queue_series(resource, span.since, span.until, fields=fields)
    if not series.resolution:
        return series
    start = span.since
    if series.times:
        last = datetime.fromisoformat(series.times[-1])
        start = max(start, last + timedelta(seconds=series.resolution))
    tail = source.queue_series(resource, start, span.until, fields=fields, resolution=0)
    stride = max(1, -(-len(tail.times) // TAIL_POINTS))
    keep = list(range(len(tail.times) - 1, -1, -stride))[::-1]  # the newest always kept
    before = len(series.times)
    series.times += [tail.times[i] for i in keep]
    for name in set(series.queues) | set(tail.queues):
        mine = series.queues.setdefault(name, {f: [None] * before for f in fields})
        theirs = tail.queues.get(name, {})
        for f in fields:
            values = theirs.get(f)
            mine[f] += [values[i] for i in keep] if values else [None] * len(keep)
    return series


def share_history(name: str, resources: list[str], span: TimeRange) -> list[tuple[str, str, Any]]:
    """Return ``(resource, element id, figure)`` of queue ``name``'s share over ``span``.

    Read from the recorded history (``monitoring``: allocated and deserved per session,
    merged per minute or ten minutes for longer ranges), one chart per resource the page
    shows; none for a resource it neither held nor deserved in the range, none at all when
    the queue has no sample in it.
    """
    charts = []
    for index, resource in enumerate(resources):
        series = _series(resource, span)
        mine = series.queues.get(name)
        if not series.times or mine is None:
            continue
        if not any(mine["allocated"]) and not any(mine["deserved"]):
            continue  # never held nor deserved any of it in the range: an empty chart
        figure = queue_share_history_figure(
            resource, series.times, mine["allocated"], mine["deserved"]
        )
        charts.append((resource, f"queue-history-{index}", figure_data(figure)))
    return charts


@role_required()
def queue_detail(request: HttpRequest, name: str) -> HttpResponse:
    """Render one queue, live."""
    queue = get_object_or_404(Queue, name=name)
    share = StoredShare.from_json(queue.share_status)
    row = QueueRow(queue, share)
    line, hidden = queue_line(request.user, name, queue.waiting_line, share.waiting)
    resources = shown_resources([queue])
    by_phase = dict(
        Job.objects.filter(queue=name).order_by().values_list("phase").annotate(n=Count("pk"))
    )
    operator = can(request.user, "queues", write=True)
    span = time_range(request)
    context = {
        "range": span,
        "share_charts": share_history(name, resources, span),
        "queue": queue,
        "row": row,
        "resources": resources,
        "plugin": share.plugin,
        "place": share.place,
        "queue_count": Queue.objects.filter(share_status__place__gt=0).count()
        if share.place
        else 0,
        "line": line,
        "hidden": hidden,
        "jobs_by_phase": sorted((phase or "New", n) for phase, n in by_phase.items()),
        "children": list(Queue.objects.filter(parent=name).values_list("name", flat=True)),
        "manifest": yaml.safe_dump(QueueKind().dump(queue), sort_keys=False),
        "audit": list(queue_audit(name))
        if can(request.user, "auditentries", write=False)
        else None,
        "may_edit": operator,
        "undeletable": why_not_deletable(queue) if operator else [],
    }
    return render_page(request, "queues/queue_detail.html", context, fragments=("queue-body",))


@role_required()
@require_POST
def queue_action(request: HttpRequest, name: str) -> HttpResponse:
    """Open, close or delete a queue (operators); a refused delete says why and writes nothing."""
    if not can(request.user, "queues", write=True):
        return HttpResponseForbidden(_("Your role does not allow changing queues."))
    queue = get_object_or_404(Queue, name=name)
    action = request.POST.get("action", "")
    if action not in ACTIONS:
        messages.error(request, _("Unknown action."))
    elif action == "delete":
        reasons = why_not_deletable(queue)
        if reasons:
            messages.error(
                request, _("Queue %(name)s was not deleted: ") % {"name": name} + " ".join(reasons)
            )
        else:
            try:
                queue_delete(queue=queue)
            except AdmissionError as exc:
                messages.error(request, str(exc))
            else:
                messages.success(request, _("Queue %(name)s deleted.") % {"name": name})
                return redirect("queues:queue_list")
    elif action == "open":
        queue_open(queue=queue)
        messages.success(request, _("Queue %(name)s is open.") % {"name": name})
    else:
        try:
            queue_close(queue=queue)
        except AdmissionError as exc:
            messages.error(request, str(exc))
        else:
            queue.refresh_from_db()
            messages.success(
                request, _("Queue %(name)s is %(state)s.") % {"name": name, "state": queue.state}
            )
    return redirect("queues:queue_detail", name=name)
