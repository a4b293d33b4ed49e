"""Submit: the common-job form and the YAML editor, validated on the server as the user types.

Besides Volcano's Job the editor takes any kind a client may create (the Kubeflow training
operator's jobs, JobTemplates, JobFlows, CronJobs...): the kind is found among the served
resources (``kube.catalogue``) by its apiVersion and kind, not imported, and the user's role
must allow writing it in that namespace. One text may hold several manifests separated by
``---`` (Volcano's JobFlow example with its templates): all are created in one transaction, or
none; after creating, the page opens the last object's console page (``Entry.console_page``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.roles import ADMIN, OPERATOR, SUBMITTER, can, role_required
from console.links import entry_url
from console.namespaces import current_namespace, readable_namespaces
from core.models import PriorityClass
from jobs.api.resources import JOBS
from jobs.submit import (
    CommonJobForm,
    ManifestTextError,
    examples,
    form_data_of,
    line_of,
    lost_fields,
    parse_manifests,
    without_field,
)
from kube.catalogue import catalogue
from kube.registry import Entry
from kube.resources import Resource
from kube.status import KubeError
from kube.store import object_create
from queues.models import Queue

__all__ = ["TRAINING_GROUP", "job_preview", "job_submit_view", "job_validate"]

# The most problems the editor marks in one document (each costs one dry-run admission).
MAX_PROBLEMS = 20
# The API group of the Kubeflow training jobs the editor also takes.
TRAINING_GROUP = "kubeflow.org"


@dataclass(frozen=True, slots=True)
class FieldError:
    """One refusal: the field path, its line in the text (0: unknown) and why."""

    field: str
    line: int
    message: str


def _entry_for(document: dict[str, Any]) -> Entry | None:
    """Return the served, client-created kind of ``document``'s apiVersion and kind, if any."""
    for entry in catalogue():
        resource = entry.resource
        if not resource.writable or entry.created_by:
            continue
        if (resource.api_version, resource.kind) == (
            document.get("apiVersion"),
            document.get("kind"),
        ):
            return entry
    return None


def _training_resource(api_version: object, kind: object) -> Resource | None:
    """Return the served Kubeflow resource of ``apiVersion``/``kind`` (None: not one)."""
    for entry in catalogue():
        resource = entry.resource
        if resource.group != TRAINING_GROUP:
            continue
        if (resource.api_version, resource.kind) == (api_version, kind):
            return resource
    return None


def _writable_namespaces(user: Any) -> list[str]:
    return [ns for ns in readable_namespaces(user) if can(user, "jobs", write=True, namespace=ns)]


def _form(request: HttpRequest, data: Any = None) -> CommonJobForm:
    namespaces = _writable_namespaces(request.user)
    form = CommonJobForm(
        data,
        namespaces=namespaces,
        queues=list(Queue.objects.order_by("name").values_list("name", flat=True)),
        priority_classes=list(
            PriorityClass.objects.order_by("name").values_list("name", flat=True)
        ),
    )
    chosen = current_namespace(request)
    form.fields["namespace"].initial = (
        chosen if chosen in namespaces else (namespaces[0] if namespaces else "")
    )
    return form


class _RefusedError(Exception):
    """A document was refused: roll every document of the text back."""


def _admit(
    request: HttpRequest, text: str, *, dry_run: bool
) -> tuple[dict[str, Any] | None, list[FieldError]]:
    """Admit ``text`` through the API's create path; return the last created object or the
    errors (each document's, placed at its line)."""
    try:
        documents = parse_manifests(text)
    except ManifestTextError as exc:
        return None, [FieldError("", exc.line, str(exc))]
    errors: list[FieldError] = []
    created: dict[str, Any] | None = None
    try:
        with transaction.atomic():
            for index, document in enumerate(documents):
                created, refused = _admit_one(request, text, index, document, dry_run=dry_run)
                errors += refused
            if errors:
                raise _RefusedError
    except _RefusedError:
        return None, errors
    return created, []


def _admit_one(
    request: HttpRequest, text: str, index: int, document: dict[str, Any], *, dry_run: bool
) -> tuple[dict[str, Any] | None, list[FieldError]]:
    meta = document.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    namespace = str(meta.get("namespace") or current_namespace(request) or "default")
    # Any kind a client may create goes to its own resource; anything else is refused as a Job.
    entry = _entry_for(document)
    resource = entry.resource if entry is not None else JOBS
    if not can(request.user, resource.access, write=True, namespace=namespace):
        line = line_of(text, "metadata.namespace", document=index)
        return None, [FieldError("metadata.namespace", line,
                                 _("You may not create %(kind)s in the namespace %(ns)s.")
                                 % {"kind": resource.kind, "ns": namespace})]  # fmt: skip
    where = f"{document.get('kind')} {meta.get('name', '')}: " if index else ""
    errors: list[FieldError] = []
    attempt: dict[str, Any] | None = document
    while attempt is not None and len(errors) < MAX_PROBLEMS:
        try:
            created = object_create(
                resource, attempt, namespace=namespace, dry_run=dry_run or bool(errors),
                user=request.user,
            )  # fmt: skip
        except KubeError as exc:
            if not exc.causes:
                errors.append(
                    FieldError("", line_of(text, "", document=index), where + exc.message)
                )
                break
            found = [FieldError(c.field, line_of(text, c.field, document=index) if c.field else 0,
                                where + c.message) for c in exc.causes]  # fmt: skip
            fresh = [e for e in found if e not in errors]
            errors += fresh
            # An invalid field: ask again without it for the manifest's next mistake.
            last = exc.causes[-1].field
            retry = exc.code == 422 and fresh and last and without_field(attempt, last)
            attempt = retry if isinstance(retry, dict) else None
            continue
        if not errors:
            return created, []
        break
    return None, sorted(errors, key=lambda error: error.line)  # as they appear in the text


def _page_of(created: dict[str, Any]) -> HttpResponse:
    """Redirect to the created object's console page (a JobTemplate's: the Workflows list)."""
    meta = created["metadata"]
    training = _training_resource(created.get("apiVersion"), created.get("kind"))
    if training is not None:
        return redirect("training:training_detail", plural=training.plural,
                        namespace=meta["namespace"], name=meta["name"])  # fmt: skip
    entry = _entry_for(created)
    page = entry_url(entry, meta.get("namespace", ""), meta["name"]) if entry else None
    if page is not None:
        return redirect(page)
    return redirect("jobs:job_detail", namespace=meta["namespace"], name=meta["name"])


@role_required(SUBMITTER, OPERATOR, ADMIN)
def job_submit_view(request: HttpRequest) -> HttpResponse:
    """Show the form and the editor; a POST submits one of them and opens the job's page.

    ``switch`` (the "Edit as YAML" and "Open in the form" buttons) carries what the user wrote
    to the other tab instead of submitting: the form's manifest into the editor, or the
    editor's Job into the form, naming the fields the form cannot hold.
    """
    templates = examples()
    text = ""
    errors: list[FieldError] = []
    lost: list[str] = []
    mode = request.POST.get("mode") or request.GET.get("mode") or "form"
    switch = request.POST.get("switch", "") if request.method == "POST" else ""
    form = _form(request, request.POST if request.method == "POST" and mode == "form" else None)
    if request.method == "POST":
        if mode == "form":
            if form.is_valid():
                text = yaml.safe_dump(form.manifest(), sort_keys=False)
                mode = "yaml" if switch == "yaml" else mode
            else:
                errors = [
                    FieldError(name, 0, "; ".join(str(m) for m in msgs))
                    for name, msgs in form.errors.items()
                ]
        else:
            text = request.POST.get("manifest", "")
            upload = request.FILES.get("file")
            if upload is not None:
                text = upload.read(256 * 1024 + 1).decode("utf-8", "replace")
            if switch == "form":
                form, lost, errors = _to_form(request, text)
                mode = "yaml" if errors else "form"
                text = text if errors else ""  # the form's preview shows what it will send
        if text and not errors and not switch:
            created, errors = _admit(request, text, dry_run=False)
            if created is not None:
                return _page_of(created)
    elif slug := request.GET.get("template"):
        chosen = next((t for t in templates if t.slug == slug), None)
        if chosen is not None:
            text, mode = chosen.text, "yaml"
    context = {"form": form, "text": text, "errors": errors, "mode": mode,
               "templates": templates, "lost": lost}  # fmt: skip
    return render(request, "jobs/job_submit.html", context, status=422 if errors else 200)


def _to_form(request: HttpRequest, text: str) -> tuple[CommonJobForm, list[str], list[FieldError]]:
    """Return the form bound to the Job in ``text``, the fields it cannot hold, or the error
    saying why the text does not open in the form."""
    form = _form(request)
    try:
        documents = parse_manifests(text)
    except ManifestTextError as exc:
        return form, [], [FieldError("", exc.line, str(exc))]
    data = form_data_of(documents[0]) if len(documents) == 1 else None
    if data is None:
        why = _("Only one Volcano Job of one task and one container opens in the form.")
        return form, [], [FieldError("", 0, why)]
    for name, field in form.fields.items():  # a required field the YAML leaves out: as new
        if not data.get(name) and field.required and field.initial is not None:
            data[name] = str(field.initial)
    form = _form(request, data)
    lost = lost_fields(documents[0], form.manifest()) if form.is_valid() else []
    return form, lost, []


@role_required(SUBMITTER, OPERATOR, ADMIN)
def job_validate(request: HttpRequest) -> HttpResponse:
    """Dry-run the editor's text (htmx, as the user types): the errors, or "valid"."""
    text = request.POST.get("manifest", "")
    errors: list[FieldError] = []
    if text.strip():
        _created, errors = _admit(request, text, dry_run=True)
    return render(request, "jobs/_validation.html", {"errors": errors, "empty": not text.strip()})


@role_required(SUBMITTER, OPERATOR, ADMIN)
def job_preview(request: HttpRequest) -> HttpResponse:
    """Return the YAML the form would send (htmx, as the user edits the form)."""
    form = _form(request, request.POST)
    if not form.is_valid():
        lines = [
            f"# {name}: {'; '.join(str(m) for m in msgs)}" for name, msgs in form.errors.items()
        ]
        return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")
    return HttpResponse(
        yaml.safe_dump(form.manifest(), sort_keys=False), content_type="text/plain; charset=utf-8"
    )
