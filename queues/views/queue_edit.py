"""Create and edit a queue by form or YAML, checked by Volcano's admission as you type.

One POST shape serves three endpoints: ``check`` answers while the user types (the refused
fields, the preview of every queue's share, and the other view of the manifest brought in
step), and the editor's own POST saves. ``source`` says which view the user edited last;
that view is the truth and the other one is regenerated from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import can, role_required
from apis.errors import ManifestError
from apis.wire import format_resources
from kube.admission_causes import AdmissionError
from queues.admission import admit_queue, validate_queue
from queues.forms import QueueForm, error_id, form_field_of, form_values, manifest_yaml, parse_yaml
from queues.manifests import QueueKind
from queues.models import Queue
from queues.selectors import shown_resources
from queues.services import QueueChangedError, queue_create, queue_edit, spec_fingerprint
from scheduler.share_preview import Preview, preview_change
from scheduler.whatif_runs import start_run

__all__ = ["queue_check", "queue_editor", "queue_whatif"]


@dataclass(slots=True)
class Editor:
    """What the user submitted, read through admission (and previewed when it passes)."""

    form: QueueForm
    source: str
    yaml_text: str
    manifest: dict[str, Any] | None = None
    admitted: Queue | None = None
    errors: list[tuple[str, str]] = field(default_factory=list)  # (manifest path, message)
    field_errors: dict[str, list[str]] = field(default_factory=dict)
    preview: Preview | None = None

    @property
    def error_slots(self) -> list[tuple[str, str]]:
        """Return (element id, text) for every input's error slot (empty ones clear it)."""
        return [
            (error_id(name), " ".join(self.field_errors.get(name, []))) for name in self.form.fields
        ]


def _admit(
    manifest: dict[str, Any], queue: Queue | None
) -> tuple[Queue | None, list[tuple[str, str]]]:
    """Return the queue ``manifest`` makes (unsaved) and every refusal as (path, message)."""
    try:
        if queue is None:
            return admit_queue(manifest).instance, []
        name = (manifest.get("metadata") or {}).get("name")
        if name != queue.name:
            return None, [
                (
                    "metadata.name",
                    _("a queue cannot be renamed (it is %(name)s)") % {"name": queue.name},
                )
            ]
        edited: Queue = QueueKind().load(manifest).instance
        candidate = Queue.objects.get(pk=queue.pk)
        for spec_field in QueueKind.spec_fields:
            setattr(candidate, spec_field, getattr(edited, spec_field))
        causes = validate_queue(candidate, old=queue)
        return (None if causes else candidate), [(c.field, c.message) for c in causes]
    except AdmissionError as exc:
        return None, [(c.field, c.message) for c in exc.causes]
    except ManifestError as exc:
        return None, [(exc.field, exc.message)]


def _read(request: HttpRequest, queue: Queue | None, *, preview: bool) -> Editor:
    resources = shown_resources(Queue.objects.all())
    fixed = queue.name if queue else ""
    source = "yaml" if request.POST.get("source") == "yaml" else "form"
    yaml_text = request.POST.get("yaml", "")
    manifest: dict[str, Any] | None = None
    parse_error = ""
    if source == "yaml":
        manifest, parse_error = parse_yaml(yaml_text)
        data = form_values(manifest, resources) if manifest else request.POST
        form = QueueForm(data=data, resources=resources, fixed_name=fixed)
        form.is_valid()
    else:
        form = QueueForm(data=request.POST, resources=resources, fixed_name=fixed)
        if form.is_valid():
            manifest = form.manifest()
            yaml_text = manifest_yaml(manifest)
    editor = Editor(form=form, source=source, yaml_text=yaml_text, manifest=manifest)
    if parse_error:
        editor.errors.append(("yaml", parse_error))
    for name, problems in form.errors.items():
        editor.field_errors.setdefault(name, []).extend(str(p) for p in problems)
        editor.errors.extend((name, str(p)) for p in problems)
    if manifest is not None:
        editor.admitted, refusals = _admit(manifest, queue)
        editor.errors.extend(refusals)
        for path, message in refusals:
            if (owner := form_field_of(path, form)) is not None:
                editor.field_errors.setdefault(owner, []).append(message)
    if preview and queue is not None and editor.admitted is not None:
        editor.preview = preview_change(editor.admitted, resources)
    return editor


def _context(editor: Editor, queue: Queue | None) -> dict[str, Any]:
    return {
        "queue": queue,
        "spec": spec_fingerprint(queue) if queue is not None else "",
        "editor": editor,
        "form": editor.form,
        "creating": queue is None,
    }


def _initial(queue: Queue | None) -> Editor:
    resources = shown_resources(Queue.objects.all())
    if queue is None:
        manifest: dict[str, Any] = {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "Queue",
            "metadata": {"name": ""},
            "spec": {"weight": 1, "reclaimable": True},
        }
    else:
        manifest = QueueKind().dump(queue)
        manifest["metadata"] = {"name": queue.name}
        manifest.pop("status", None)
    form = QueueForm(
        initial=form_values(manifest, resources),
        resources=resources,
        fixed_name=queue.name if queue else "",
    )
    return Editor(form=form, source="form", yaml_text=manifest_yaml(manifest), manifest=manifest)


@role_required()
def queue_editor(request: HttpRequest, name: str | None = None) -> HttpResponse:
    """Show the editor (GET) or save what it holds (POST), for operators only."""
    if not can(request.user, "queues", write=True):
        return HttpResponseForbidden(_("Your role does not allow changing queues."))
    queue = get_object_or_404(Queue, name=name) if name else None
    if request.method != "POST":
        return render(request, "queues/queue_edit.html", _context(_initial(queue), queue))
    editor = _read(request, queue, preview=False)
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
        except AdmissionError as exc:
            editor.errors.extend((c.field, c.message) for c in exc.causes)
        except ManifestError as exc:
            editor.errors.append((exc.field, exc.message))
    if queue is not None and editor.admitted is not None:
        editor.preview = preview_change(editor.admitted, shown_resources(Queue.objects.all()))
    return render(request, "queues/queue_edit.html", _context(editor, queue), status=status)


@role_required()
@require_POST
def queue_check(request: HttpRequest, name: str | None = None) -> HttpResponse:
    """Answer the editor while the user types: refusals, the preview, the other view in step."""
    if not can(request.user, "queues", write=True):
        return HttpResponseForbidden(_("Your role does not allow changing queues."))
    queue = get_object_or_404(Queue, name=name) if name else None
    editor = _read(request, queue, preview=True)
    context = _context(editor, queue)
    context["oob"] = True
    return render(request, "queues/_queue_check.html", context)


@role_required()
@require_POST
def queue_whatif(request: HttpRequest, name: str) -> HttpResponse:
    """Run the scheduler's what-if of the edited queue (the active configuration, this change).

    The what-if runs whole sessions on a copy of the cluster, with and without the change:
    which pods each side binds, evicts or leaves waiting. Nothing is saved.
    """
    if not can(request.user, "queues", write=True):
        return HttpResponseForbidden(_("Your role does not allow changing queues."))
    queue = get_object_or_404(Queue, name=name)
    editor = _read(request, queue, preview=False)
    if editor.admitted is None or editor.errors:
        return render(request, "queues/queue_edit.html", _context(editor, queue), status=400)
    edited = editor.admitted
    change = {
        "weight": edited.weight,
        "capability": format_resources(edited.capability or {}),
        "deserved": format_resources(edited.deserved or {}),
        "guarantee": format_resources(edited.guarantee or {}),
    }
    run = start_run(user=request.user, draft_text=None, queue_changes={queue.name: change})
    return redirect("scheduler:policy_whatif_result", run_id=run.id)
