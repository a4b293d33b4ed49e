"""Writes through the API: create, replace (main resource or ``/status``), patch and delete.

Every write follows the same steps: decode, check the object against the
path, run the admission plugins (NamespaceLifecycle), load it through the kind's
manifest reader (shape errors name the field), run admission, check what may
change, validate against the model, then save in one transaction, unless
``dryRun`` asked only for the would-be object.

A delete runs the kind's own steps from the registry (``Entry.delete``: a pod on a node
terminates gracefully, a namespace terminates) and tells the kind's eviction hooks
(``registry.evicted``: the jobs app hears that one of its pods was deleted by someone else).
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F

from apis.errors import ManifestError
from kube import registry
from kube.admission import admit, admit_delete, run_plugins
from kube.bodies import JSON_PATCH, apply_json_patch, apply_merge_patch
from kube.changes import versions_at_end
from kube.finalizers import (
    delete_or_finalize,
    finish_if_released,
    terminating_update_causes,
)
from kube.garbage import note_owner_change, orphan_dependents
from kube.manifest_kinds import Loaded
from kube.models import Generation, ObjectMeta
from kube.render import generations, render
from kube.resources import Resource
from kube.status import Cause, KubeError

__all__ = ["generate_name", "object_create", "object_delete", "object_patch", "object_replace"]

_SERVER_METADATA = (
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "managedFields",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
)


def _invalid(resource: Resource, name: str, causes: list[Cause]) -> KubeError:
    summary = ", ".join(f"{c.field}: {c.message}" for c in causes)
    return KubeError(
        422,
        f'{resource.kind} "{name}" is invalid: {summary}',
        kind=resource.kind,
        name=name,
        group=resource.group,
        causes=causes,
    )


def _load(resource: Resource, document: Mapping[str, Any], name: str) -> Loaded:
    try:
        return resource.manifest.load(document)
    except ManifestError as exc:
        raise _invalid(resource, name, [Cause(exc.field, exc.message)]) from exc


def _validate(resource: Resource, instance: Any, name: str) -> None:
    """Validate ``instance``, whose key the caller found free (create) or its own (update)."""
    try:
        resource.manifest.validate(instance, unique_checked=True)
    except ManifestError as exc:
        raise _invalid(resource, name, [Cause(exc.field, exc.message)]) from exc


def _check_document(resource: Resource, document: Any, namespace: str | None) -> dict[str, Any]:
    """Return a copy of ``document`` checked against the path; server metadata dropped."""
    if not isinstance(document, dict):
        raise KubeError(400, f"expected a {resource.kind} object")
    document = copy.deepcopy(document)
    for key, expected in (("apiVersion", resource.api_version), ("kind", resource.kind)):
        if key not in document:  # as kube-apiserver: the body must say what it is
            raise KubeError(400, f"Object '{key[0].upper()}{key[1:]}' is missing in the body")
        value = document[key]
        if value != expected:
            raise KubeError(400, f"{key} {value!r} does not match the path: expected {expected!r}")
    meta = document.setdefault("metadata", {})
    if not isinstance(meta, dict):
        raise _invalid(resource, "", [Cause("metadata", "expected an object")])
    if resource.namespaced and namespace is not None:
        given = meta.setdefault("namespace", namespace)
        if given != namespace:
            raise KubeError(
                400,
                "the namespace of the provided object does not match the namespace sent on"
                " the request",
            )
    for key in _SERVER_METADATA:
        meta.pop(key, None)
    return document


# Kubernetes' generated-name suffix: five characters from an alphabet without vowels (no
# words) and without look-alikes (0/o, 1/l, 3/e): apimachinery's util/rand.
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_NAME_SUFFIX = 5
_MAX_GENERATED_BASE = 63 - _NAME_SUFFIX


def generate_name(base: str) -> str:
    """Return ``base`` (cut to 58 characters) and a random suffix, as kube-apiserver does."""
    suffix = "".join(secrets.choice(_NAME_ALPHABET) for _ in range(_NAME_SUFFIX))
    return base[:_MAX_GENERATED_BASE] + suffix


def object_create(
    resource: Resource,
    document: Any,
    *,
    namespace: str | None,
    dry_run: bool,
    user: Any | None = None,
) -> dict[str, Any]:
    """Create the object; 409 when the name is taken, 422 naming each invalid field."""
    document = _check_document(resource, document, namespace)
    meta = document["metadata"]
    if not meta.get("name") and isinstance(meta.get("generateName"), str):
        meta["name"] = generate_name(meta["generateName"])
    meta.pop("generateName", None)
    if resource.status_subresource and not resource.status_on_create:
        document.pop("status", None)
    name = str(meta.get("name") or "")
    run_plugins(resource, document, "CREATE")
    _check_scheduler_fields(resource, document, name)
    loaded = _load(resource, document, name)
    instance = loaded.instance
    if resource.creator_field and user is not None and user.is_authenticated:
        setattr(instance, resource.creator_field, user)
    with transaction.atomic(), versions_at_end():  # the writers' lock just before commit
        loaded.kind.resolve(loaded)
        if causes := admit(loaded, None, "CREATE"):
            raise _invalid(resource, name, causes)
        if _exists(resource, instance):
            raise _already_exists(resource, name)
        _validate(resource, instance, name)
        if dry_run:
            return render(resource, instance, children=loaded.children, generation=1)
        if isinstance(instance, ObjectMeta):
            instance.uid = None  # a new object gets a new uid, whatever the body said
        try:
            with transaction.atomic():
                instance.save()
        except IntegrityError as exc:
            raise _already_exists(resource, name) from exc
        loaded.kind.save_children(instance, loaded.children)
    return render(resource, instance, children=loaded.children, generation=1)


def _at(document: Any, path: str) -> Any:
    for part in path.split("."):
        document = document.get(part) if isinstance(document, dict) else None
    return document


def _check_scheduler_fields(
    resource: Resource, document: Any, name: str, current: Any = None
) -> None:
    """Refuse setting (or changing) a field only the scheduler writes, naming it (422)."""
    for path in resource.scheduler_fields:
        wanted = _at(document, path) or ""
        before = _at(current, path) or "" if current is not None else ""
        if wanted != before:
            why = ("only the scheduler binds a pod: create it without a node and let a "
                   "session place it" if current is None else "a pod's node cannot be changed")  # fmt: skip
            raise _invalid(
                resource, name, [Cause(path, f"{wanted!r}: {why}", "FieldValueForbidden")]
            )


def _exists(resource: Resource, instance: Any) -> bool:
    keys = {"name": instance.name}
    if resource.namespaced:
        keys["namespace"] = instance.namespace
    return bool(resource.model._default_manager.filter(**keys).exists())


def _already_exists(resource: Resource, name: str) -> KubeError:
    return KubeError(
        409,
        f'{resource.qualified} "{name}" already exists',
        reason="AlreadyExists",
        kind=resource.plural,
        name=name,
        group=resource.group,
    )


def object_replace(
    resource: Resource,
    existing: Any,
    document: Any,
    *,
    subresource: str = "",
    dry_run: bool,
) -> dict[str, Any]:
    """Replace the object (or its ``status``); 409 on a stale resourceVersion. Call locked."""
    namespace = existing.namespace if resource.namespaced else None
    if isinstance(document, dict) and isinstance(document.get("metadata"), dict):
        meta = document["metadata"]
        if meta.get("name") not in (None, existing.name):
            raise KubeError(
                400,
                f"the name of the object ({meta.get('name')}) does not match the name on the"
                f" URL ({existing.name})",
            )
        uid = meta.get("uid")
        stored_uid = getattr(existing, "uid", None)
        if uid not in (None, "") and stored_uid is not None and str(uid) != str(stored_uid):
            raise _conflict(resource, existing.name, f"the UID in the object ({uid}) does not "
                            f"match the stored object's ({stored_uid})")  # fmt: skip
        version = meta.get("resourceVersion")
        stored = getattr(existing, "resource_version", None)
        if version not in (None, "") and str(version) != str(stored):
            raise KubeError(
                409,
                f'Operation cannot be fulfilled on {resource.qualified} "{existing.name}": the'
                " object has been modified; please apply your changes to the latest version"
                " and try again",
                kind=resource.plural,
                name=existing.name,
                group=resource.group,
            )
    document = _check_document(resource, document, namespace)
    document["metadata"].setdefault("name", existing.name)
    run_plugins(resource, document, "UPDATE")
    stored_children = resource.manifest.stored_children(existing)
    current = render(resource, existing, children=stored_children, generation=1)
    if subresource == "status":
        status = document.get("status")
        document = copy.deepcopy(current)
        document["status"] = status
        for key in _SERVER_METADATA:
            document["metadata"].pop(key, None)
    elif resource.status_subresource and "status" in current:
        document["status"] = current["status"]
    if subresource != "status":
        _check_scheduler_fields(resource, document, existing.name, current)
    loaded = _load(resource, document, existing.name)
    loaded.kind.resolve(loaded)
    # Volcano's webhooks judge spec updates; /status writes are the controllers'.
    if subresource != "status" and (causes := admit(loaded, existing, "UPDATE")):
        raise _invalid(resource, existing.name, causes)
    fields = (
        resource.status_fields()
        if subresource == "status"
        else [*resource.manifest.meta_fields, *resource.manifest.spec_fields]
    )
    before_refs = getattr(existing, "owner_references", None)
    before_finalizers = list(getattr(existing, "finalizers", None) or ())
    for name in fields:
        setattr(existing, name, getattr(loaded.instance, name))
    children = stored_children if subresource == "status" else loaded.children or stored_children
    after = render(resource, existing, children=children, generation=1)
    uid = getattr(existing, "uid", None)
    generation = generations([existing]).get(uid, 1) if uid is not None else 1
    if after == current:
        return render(resource, existing, children=children, generation=generation)
    deleting = getattr(existing, "deletion_timestamp", None) is not None
    refused = deleting and subresource != "status"
    if refused and (causes := terminating_update_causes(before_finalizers, current, after)):
        raise _invalid(resource, existing.name, causes)
    _validate(resource, existing, existing.name)
    if isinstance(existing, ObjectMeta):
        note_owner_change(existing, before_refs)
    spec_changed = after.get("spec") != current.get("spec")
    if spec_changed:
        generation += 1
    if dry_run:
        return render(resource, existing, children=children, generation=generation)
    with transaction.atomic():
        if deleting and finish_if_released(existing):
            after["metadata"]["generation"] = generation
            return after  # the last finalizer went, so does the object (one DELETED event)
        existing.save()
        if subresource != "status" and loaded.children:
            loaded.kind.save_children(existing, loaded.children)
        if spec_changed and uid is not None:
            _bump_generation(uid)
    return render(resource, existing, children=children, generation=generation)


def _bump_generation(uid: Any) -> None:
    updated = Generation.objects.filter(uid=uid).update(generation=F("generation") + 1)
    if not updated:
        Generation.objects.create(uid=uid, generation=2)


def object_patch(
    resource: Resource,
    existing: Any,
    patch: Any,
    *,
    content_type: str,
    subresource: str = "",
    dry_run: bool,
) -> dict[str, Any]:
    """Apply a merge or JSON ``patch`` to the stored manifest, then replace with the result."""
    current = render(resource, existing, generation=1)
    if content_type == JSON_PATCH:
        patched = apply_json_patch(current, patch)
    else:
        if not isinstance(patch, dict):
            raise KubeError(400, "a merge patch must be a JSON object")
        patched = apply_merge_patch(current, patch)
    return object_replace(resource, existing, patched, subresource=subresource, dry_run=dry_run)


def _conflict(resource: Resource, name: str, why: str) -> KubeError:
    return KubeError(
        409, f'Operation cannot be fulfilled on {resource.qualified} "{name}": {why}',
        kind=resource.plural, name=name, group=resource.group,
    )  # fmt: skip


def check_preconditions(resource: Resource, existing: Any, preconditions: Any) -> None:
    """Refuse (409) a delete whose ``DeleteOptions.preconditions`` do not match the object."""
    if not preconditions:
        return
    if not isinstance(preconditions, dict):
        raise KubeError(400, "preconditions must be an object with uid and/or resourceVersion")
    uid = preconditions.get("uid")
    if uid not in (None, "") and str(uid) != str(getattr(existing, "uid", "")):
        raise _conflict(resource, existing.name, f"Precondition failed: UID in precondition: "
                        f"{uid}, UID in object meta: {getattr(existing, 'uid', '')}")  # fmt: skip
    version = preconditions.get("resourceVersion")
    stored = getattr(existing, "resource_version", "")
    if version not in (None, "") and str(version) != str(stored):
        raise _conflict(resource, existing.name, "Precondition failed: ResourceVersion in "
                        f"precondition: {version}, ResourceVersion in object meta: {stored}")  # fmt: skip


def object_delete(
    resource: Resource,
    existing: Any,
    *,
    dry_run: bool,
    preconditions: Any = None,
    propagation: str = "Background",
    grace_period: int | None = None,
) -> dict[str, Any]:
    """Delete the object and return its last state; 403 when its model refuses (in use).

    ``preconditions`` (``DeleteOptions.preconditions``): 409 unless the object still has that
    uid and resourceVersion, so a client never deletes a newer incarnation by mistake. An
    object with finalizers is only marked (``deletionTimestamp``) and returned as it now is.
    ``propagation`` ``Orphan`` leaves its dependents, without their reference to it; any
    other policy collects them (``kube.garbage``). A kind may take the deletion over
    (``Entry.delete``): a pod running on a node is deleted gracefully (marked, Running until
    its containers exit or ``grace_period``, ``DeleteOptions.gracePeriodSeconds``, ends; 0
    deletes it at once), a namespace terminates (shown Terminating, as kube-apiserver answers).
    """
    check_preconditions(resource, existing, preconditions)
    entry = registry.entry_for_model(type(existing))
    last = render(resource, existing)
    if causes := admit_delete(existing):
        raise _refused(resource, existing.name, "; ".join(c.message for c in causes))
    if dry_run:
        return last
    try:
        with transaction.atomic():
            if propagation == "Orphan" and isinstance(existing, ObjectMeta):
                orphan_dependents(existing)
            delete = entry.delete if entry is not None else None
            if delete is not None and delete(existing, grace_period=grace_period):
                return render(resource, existing)  # Terminating: its kind finishes it
            if not getattr(existing, "finalizers", None):
                # Only a controller deletes its own objects without this: a pod deleted here
                # is an eviction, which its job's policies get to act on (PodEvicted).
                registry.evicted(existing)
            if not delete_or_finalize(existing):
                return render(resource, existing)  # Terminating until its finalizers go
    except ValidationError as exc:
        raise _refused(resource, existing.name, "; ".join(exc.messages)) from exc
    return last


def _refused(resource: Resource, name: str, message: str) -> KubeError:
    return KubeError(
        403,
        f'{resource.qualified} "{name}" is forbidden: {message}',
        kind=resource.plural,
        name=name,
        group=resource.group,
    )
