"""A queue's page: its figures, its waiting jobs in the engine's order, its history; actions.

The page composes what other apps own by URL: the waiting jobs and the jobs by phase are the
jobs app's fragment (``jobs:queue_jobs``), the share over time the monitoring app's
(``monitoring:queue_history``), each loaded by ``hx-get`` into its section and refreshed live
on its own topics.
"""

from __future__ import annotations

import yaml
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import can, role_required
from console.render import render_page
from console.time_range import time_range
from kube import registry
from kube.admission_causes import AdmissionError
from queues.manifests import QueueKind
from queues.models import Queue
from queues.selectors import QueueRow, queue_audit, shown_resources
from queues.services import queue_close, queue_delete, queue_open
from queues.share_status import StoredShare

__all__ = ["queue_action", "queue_detail", "why_not_deletable"]

ACTIONS = ("open", "close", "delete")


def why_not_deletable(queue: Queue) -> list[str]:
    """Return every reason the console refuses to delete ``queue`` (empty: it may go).

    Volcano's webhook refuses ``default``, ``root`` and queues with children; the console also
    refuses a queue that still holds jobs, whose PodGroups would be left pointing nowhere (the
    apps whose jobs name a queue count them: ``kube.registry.add_reference_counter``).
    """
    reasons: list[str] = []
    if queue.is_protected:
        reasons.append(_("Volcano never deletes the %(name)s queue.") % {"name": queue.name})
    children = sorted(Queue.objects.filter(parent=queue.name).values_list("name", flat=True))
    if children:
        reasons.append(_("It has child queues: %(names)s.") % {"names": ", ".join(children)})
    jobs = sum(registry.references(queue).values())
    if jobs:
        reasons.append(
            _("It holds %(n)d job(s): delete them or wait until they are gone.") % {"n": jobs}
        )
    return reasons


@role_required()
def queue_detail(request: HttpRequest, name: str) -> HttpResponse:
    """Render one queue, live."""
    queue = get_object_or_404(Queue, name=name)
    share = StoredShare.from_json(queue.share_status)
    row = QueueRow(queue, share)
    operator = can(request.user, "queues", write=True)
    context = {
        # The history fragment draws the range the page's URL asks for.
        "range": time_range(request),
        "queue": queue,
        "row": row,
        "resources": shown_resources([queue]),
        "plugin": share.plugin,
        "place": share.place,
        "queue_count": Queue.objects.filter(share_status__place__gt=0).count()
        if share.place
        else 0,
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
        raise PermissionDenied(_("Your role does not allow changing queues."))
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
