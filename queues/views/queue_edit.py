"""Create and edit a queue by form or YAML, checked by Volcano's admission as you type.

One POST shape (``queues.editor``) serves the editor: ``check`` answers while the user types
(the refused fields, and the other view of the manifest brought in step), and the editor's own
POST saves. ``source`` says which view the user edited last; that view is the truth and the
other one is regenerated from it.

What the edit would do to every queue's share, and the what-if of it, are the scheduler's: the
editor holds a slot that posts the same form to ``scheduler:queue_share_preview`` after each
check (the ``queue-checked`` event), and its what-if button posts it to
``scheduler:queue_whatif``.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import can, role_required
from kube.status import KubeError
from queues.editor import editor_context, initial_editor, read_editor
from queues.models import Queue
from queues.services import QueueChangedError, queue_create, queue_edit

__all__ = ["CHECKED_EVENT", "queue_check", "queue_editor"]

# Fired once a check's answer is in the page: the share preview then follows the edit.
CHECKED_EVENT = "queue-checked"


@role_required()
def queue_editor(request: HttpRequest, name: str | None = None) -> HttpResponse:
    """Show the editor (GET) or save what it holds (POST), for operators only."""
    if not can(request.user, "queues", write=True):
        raise PermissionDenied(_("Your role does not allow changing queues."))
    queue = get_object_or_404(Queue, name=name) if name else None
    if request.method != "POST":
        editor = initial_editor(queue)
        return render(request, "queues/queue_edit.html", editor_context(editor, queue))
    editor = read_editor(request, queue)
    status = 400
    if editor.admitted is not None and editor.manifest is not None and not editor.errors:
        try:
            if queue is None:
                saved = queue_create(manifest=editor.manifest)
                messages.success(request, _("Queue %(name)s created.") % {"name": saved.name})
            else:
                version = int(request.POST.get("resource_version", "0") or 0)
                saved = queue_edit(
                    name=queue.name,
                    manifest=editor.manifest,
                    resource_version=version,
                    spec=request.POST.get("spec", ""),
                )
                messages.success(request, _("Queue %(name)s saved.") % {"name": saved.name})
            return redirect("queues:queue_detail", name=saved.name)
        except QueueChangedError as exc:
            editor.errors.append(("metadata.resourceVersion", str(exc)))
            if queue is not None:
                queue.refresh_from_db()
            status = 409
        except KubeError as exc:  # refused by the API's write (someone changed the cluster)
            editor.errors.extend((c.field, c.message) for c in exc.causes)
            if not exc.causes:
                editor.errors.append(("", exc.message))
    context = editor_context(editor, queue, preview=True)
    return render(request, "queues/queue_edit.html", context, status=status)


@role_required()
@require_POST
def queue_check(request: HttpRequest, name: str | None = None) -> HttpResponse:
    """Answer the editor while the user types: refusals and the other view in step."""
    if not can(request.user, "queues", write=True):
        raise PermissionDenied(_("Your role does not allow changing queues."))
    queue = get_object_or_404(Queue, name=name) if name else None
    editor = read_editor(request, queue)
    context = editor_context(editor, queue)
    context["oob"] = True
    response = render(request, "queues/_queue_check.html", context)
    response["HX-Trigger-After-Settle"] = CHECKED_EVENT
    return response
