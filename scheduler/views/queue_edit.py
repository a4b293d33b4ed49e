"""The scheduler's part of the queue editor: the share preview of an edit and its what-if.

The editor belongs to the queues app, below this one. It posts what the user typed to these
views, which read it exactly as the editor does (``queues.editor``) and answer with what the
engine makes of it: ``queue_share_preview`` every queue's deserved share now and after saving
(the fragment the editor's preview slot loads after each check), ``queue_whatif`` whole
sessions on a copy of the cluster, with and without the change. ``queue_weight_preview``
answers the queues page's tree: the same preview for a weight typed on a queue's node, shown
in place on every node whose deserved share moves. Nothing is saved; all are for the roles
that may change queues, as the editor is.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import can, role_required
from apis.wire import format_resources
from queues.admission import validate_queue
from queues.editor import editor_context, read_editor
from queues.models import Queue
from queues.selectors import shown_resources
from scheduler.share_preview import preview_change
from scheduler.whatif_runs import start_run

__all__ = ["queue_share_preview", "queue_weight_preview", "queue_whatif"]


@role_required()
@require_POST
def queue_share_preview(request: HttpRequest, name: str) -> HttpResponse:
    """Answer the editor's preview slot: every queue's share now → after this edit (or nothing
    while Volcano's admission refuses it)."""
    if not can(request.user, "queues", write=True):
        raise PermissionDenied(_("Your role does not allow changing queues."))
    queue = get_object_or_404(Queue, name=name)
    edited = read_editor(request, queue).admitted
    resources = shown_resources(Queue.objects.all())
    preview = preview_change(edited, resources) if edited is not None else None
    return render(request, "scheduler/_share_preview.html", {"p": preview})


@role_required()
@require_POST
def queue_weight_preview(request: HttpRequest, name: str) -> HttpResponse:
    """Answer a weight typed on the queues page's tree: what every queue would deserve if
    queue ``name`` had it, checked by Volcano's admission first; nothing is saved.

    A refused weight is answered with 200 and the refusal naming ``spec.weight``: the answer
    goes into the page by htmx, which swaps no 4xx answer in.
    """
    if not can(request.user, "queues", write=True):
        raise PermissionDenied(_("Your role does not allow changing queues."))
    queue = get_object_or_404(Queue, name=name)
    edited = Queue.objects.get(pk=queue.pk)
    context: dict[str, Any] = {"queue": queue, "p": None, "refused": ""}
    typed = request.POST.get("weight", "").strip()
    try:
        edited.weight = int(typed)
    except ValueError:
        context["refused"] = _("spec.weight: %(value)r is not a whole number") % {"value": typed}
        return render(request, "scheduler/_weight_preview.html", context)
    causes = validate_queue(edited, old=queue)
    if causes:
        context["refused"] = "; ".join(f"{c.field}: {c.message}" for c in causes)
        return render(request, "scheduler/_weight_preview.html", context)
    context["p"] = preview_change(edited, shown_resources(Queue.objects.all()))
    context["weight"] = edited.weight
    return render(request, "scheduler/_weight_preview.html", context)


@role_required()
@require_POST
def queue_whatif(request: HttpRequest, name: str) -> HttpResponse:
    """Run the scheduler's what-if of the edited queue (the active configuration, this change).

    The what-if runs whole sessions on a copy of the cluster, with and without the change:
    which pods each side binds, evicts or leaves waiting. Nothing is saved. A refused edit
    shows the editor again, naming what is refused.
    """
    if not can(request.user, "queues", write=True):
        raise PermissionDenied(_("Your role does not allow changing queues."))
    queue = get_object_or_404(Queue, name=name)
    editor = read_editor(request, queue)
    if editor.admitted is None or editor.errors:
        context = editor_context(editor, queue)
        return render(request, "queues/queue_edit.html", context, status=400)
    edited = editor.admitted
    change = {
        "weight": edited.weight,
        "capability": format_resources(edited.capability or {}),
        "deserved": format_resources(edited.deserved or {}),
        "guarantee": format_resources(edited.guarantee or {}),
    }
    run = start_run(user=request.user, draft_text=None, queue_changes={queue.name: change})
    return redirect("scheduler:policy_whatif_result", run_id=run.id)
