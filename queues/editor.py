"""The queue editor's reading of what the user typed: the form or the YAML (whichever the
user edited last is the truth), through Volcano's queue admission.

The editor's own views (``queues.views.queue_edit``) and the scheduler's share preview and
what-if of an edit (``scheduler.views.queue_edit``) read a submission the same way, so what is
previewed is exactly what would be saved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _

from apis.errors import ManifestError
from kube.admission_causes import AdmissionError
from queues.admission import admit_queue, validate_queue
from queues.forms import (
    QUOTA_KINDS,
    QueueForm,
    error_id,
    form_field_of,
    form_values,
    manifest_yaml,
    parse_yaml,
)
from queues.manifests import QueueKind
from queues.models import Queue
from queues.selectors import shown_resources
from queues.services import spec_fingerprint

__all__ = ["Editor", "editor_context", "initial_editor", "read_editor"]


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


# The spec fields the form has inputs for; the others (affinity, ...) the form carries over.
FORM_SPEC = frozenset(
    {"weight", "reclaimable", "priority", "parent", "dequeueStrategy", *QUOTA_KINDS}
)


def _with_unformed_spec(
    manifest: dict[str, Any], yaml_text: str, queue: Queue | None
) -> dict[str, Any]:
    """Return the form's ``manifest`` with the spec fields it has no input for kept.

    Why: a save replaces the whole spec, so a queue's ``affinity`` (which only the YAML view
    shows) would be lost by editing its weight in the form. They come from the YAML view as
    it stood (the page keeps it in step with the form), else from the stored queue.
    """
    previous, _error = parse_yaml(yaml_text) if yaml_text.strip() else (None, "")
    if previous is None and queue is not None:
        previous = QueueKind().dump(queue)
    spec = (previous or {}).get("spec")
    if not isinstance(spec, dict):
        return manifest
    kept = {key: value for key, value in spec.items() if key not in FORM_SPEC}
    manifest["spec"] = {**manifest["spec"], **kept}
    return manifest


def read_editor(request: HttpRequest, queue: Queue | None) -> Editor:
    """Return what the user submitted (``request.POST``), read through the form or the YAML
    and Volcano's admission, for ``queue`` (None: a new one)."""
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
            manifest = _with_unformed_spec(form.manifest(), yaml_text, queue)
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
    return editor


def editor_context(editor: Editor, queue: Queue | None, *, preview: bool = False) -> dict[str, Any]:
    """Return the editor page's context; ``preview``: the page loads the share preview of
    what it holds (the scheduler's fragment) as it opens."""
    return {
        "queue": queue,
        "spec": spec_fingerprint(queue) if queue is not None else "",
        "editor": editor,
        "form": editor.form,
        "creating": queue is None,
        "preview_on_load": preview and queue is not None and editor.admitted is not None,
    }


def initial_editor(queue: Queue | None) -> Editor:
    """Return the editor of ``queue`` as stored (a blank new queue for None)."""
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
