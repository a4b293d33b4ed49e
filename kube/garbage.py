"""Garbage collection by owner uid, for every served kind (Kubernetes' background propagation).

A client may set ``metadata.ownerReferences`` on any object; each reference is also an
``OwnerLink`` row (owner uid → dependent), written when the dependent is created or its
references change. When an object is deleted, its dependents are found by its uid through
that index (never by reading JSON) and:

- a dependent with no other live owner is deleted (or, holding finalizers, marked for
  deletion), which collects its own dependents in turn;
- a dependent with another live owner stays, and the reference to the gone owner is removed,
  as Kubernetes' garbage collector patches away dangling references.

This runs in the owner's delete transaction, right after the owner's row is gone (its
``post_delete``): watchers see the owner DELETED, then each dependent. ``Foreground``
deletion (Kubernetes waits for the dependents before removing the owner) is served as
``Background``: the answer is the same once the transaction commits, since both are deleted
in it (https://kubernetes.io/docs/concepts/architecture/garbage-collection/#cascading-deletion).
``Orphan`` (``orphan_dependents``) strips the references instead and leaves the dependents.

The owners our controllers imply through foreign keys (a Job's pods, PodGroup and Secrets)
are collected by the database's cascade; Orphan sets those keys to null.

Served kinds are the registry's; the receivers are connected to each kind's model as it is
registered (a receiver for every sender would cost every other model Django's fast delete:
``kube.changes`` says why).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models.deletion import CASCADE, ProtectedError
from django.db.models.signals import post_delete, post_save

from kube import registry
from kube.finalizers import delete_or_finalize
from kube.models import ObjectMeta, OwnerLink
from kube.registry import Entry

__all__ = ["connect", "link_created", "note_owner_change", "orphan_dependents", "served_models"]

logger = logging.getLogger(__name__)


def served_models() -> dict[str, type[models.Model]]:
    """Return every served model that keeps metadata, by model label."""
    return _served_models(registry.revision())


# Keyed by the registry's revision: a kind served or withdrawn is seen at once.
@lru_cache(maxsize=4)
def _served_models(revision: int) -> dict[str, type[models.Model]]:
    return {e.label: e.model for e in registry.entries() if issubclass(e.model, ObjectMeta)}


def _kinds() -> dict[tuple[str, str], str]:
    """Return ``(API group, kind)`` → model label of every served kind."""
    return _kinds_at(registry.revision())


@lru_cache(maxsize=4)
def _kinds_at(revision: int) -> dict[tuple[str, str], str]:
    return {
        (entry.resource.group, entry.resource.kind): entry.label
        for entry in registry.entries()
        if issubclass(entry.model, ObjectMeta)
    }


def _owner_kind(ref: dict[str, Any]) -> str:
    group = str(ref.get("apiVersion", "")).rpartition("/")[0]
    return _kinds().get((group, str(ref.get("kind", ""))), "")


def _uid(value: Any) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def note_owner_change(instance: Any, before: Any) -> None:
    """Mark ``instance`` so that its next save rewrites its links, if its references changed."""
    if instance.owner_references != before:
        instance._owner_links_stale = True


def link_created(instances: Iterable[Any]) -> None:
    """Write the owner links of rows created by ``bulk_create``, which sends no signals.

    Without them a controller's bulk-created pods would name their owner in
    ``ownerReferences`` yet outlive it.
    """
    links = [link for instance in instances for link in _links(instance)]
    OwnerLink.objects.bulk_create(links)


def _write_links(instance: Any, *, replace: bool) -> None:
    label = instance._meta.label_lower
    if replace:
        OwnerLink.objects.filter(dependent_kind=label, dependent_pk=instance.pk).delete()
    OwnerLink.objects.bulk_create(_links(instance))


def _links(instance: Any) -> list[OwnerLink]:
    """Return the (unsaved) links of ``instance``, one per distinct owner uid."""
    label = instance._meta.label_lower
    links = {
        uid: OwnerLink(
            owner_uid=uid,
            owner_kind=_owner_kind(ref),
            dependent_kind=label,
            dependent_pk=instance.pk,
            dependent_namespace=getattr(instance, "namespace", "") or "",
            dependent_name=instance.name,
        )
        for ref in instance.owner_references or ()
        if (uid := _uid(ref.get("uid"))) is not None
    }
    return list(links.values())


def _on_saved(sender: Any, instance: Any, created: bool, raw: bool, **kwargs: Any) -> None:
    if raw or sender._meta.label_lower not in served_models():
        return
    if created:
        if instance.owner_references:
            _write_links(instance, replace=False)
    elif instance.__dict__.pop("_owner_links_stale", False):
        _write_links(instance, replace=True)


def _on_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    if sender._meta.label_lower not in served_models():
        return
    if instance.owner_references:  # its own links go with it
        OwnerLink.objects.filter(
            dependent_kind=instance._meta.label_lower, dependent_pk=instance.pk
        ).delete()
    if instance.uid is not None:
        _collect(instance.uid)


def _alive(ref: dict[str, Any]) -> bool:
    """Return whether the owner ``ref`` names exists (an owner of a kind not served counts)."""
    model = served_models().get(_owner_kind(ref))
    uid = _uid(ref.get("uid"))
    if model is None or uid is None:
        return model is None
    return bool(model._default_manager.filter(uid=uid).exists())


def _collect(owner_uid: uuid.UUID) -> None:
    """Delete (or strip) the dependents of the owner whose uid was ``owner_uid``."""
    links = list(OwnerLink.objects.filter(owner_uid=owner_uid).order_by("pk"))
    if not links:
        return
    OwnerLink.objects.filter(owner_uid=owner_uid).delete()
    gone = str(owner_uid)
    for link in links:
        model = served_models().get(link.dependent_kind)
        if model is None:
            continue
        dependent: Any = (
            model._default_manager.select_for_update().filter(pk=link.dependent_pk).first()
        )
        if dependent is None:
            continue  # already deleted (a job's pods go by cascade first)
        remaining = [ref for ref in dependent.owner_references if ref.get("uid") != gone]
        live = [ref for ref in remaining if _alive(ref)]
        # A pod, PodGroup or Secret whose job owns it by foreign key has a live owner too.
        if live or getattr(dependent, "job_id", None) is not None:
            _set_owner_references(dependent, live)
        else:
            _delete_dependent(dependent)


def _set_owner_references(instance: Any, refs: list[dict[str, Any]]) -> None:
    if refs == instance.owner_references:
        return
    instance.owner_references = refs
    instance._owner_links_stale = True
    instance.save(update_fields=["owner_references"])


def _delete_dependent(dependent: Any) -> None:
    try:
        with transaction.atomic():
            delete_or_finalize(dependent)
    except (ValidationError, ProtectedError) as exc:  # a default queue, an in-use class
        logger.warning("garbage collection kept %s: %s", dependent, exc)


def orphan_dependents(owner: Any) -> None:
    """``propagationPolicy: Orphan``: the owner's dependents stay, without their reference to it.

    References clients set are stripped (each dependent is MODIFIED); the dependents our
    controllers own through a nullable foreign key (a Job's pods, PodGroup, Secrets) lose it.
    """
    if owner.uid is not None:
        gone = str(owner.uid)
        links = list(OwnerLink.objects.filter(owner_uid=owner.uid).order_by("pk"))
        OwnerLink.objects.filter(owner_uid=owner.uid).delete()
        for link in links:
            model = served_models().get(link.dependent_kind)
            if model is None:
                continue
            query = model._default_manager.select_for_update().filter(pk=link.dependent_pk)
            dependent: Any = query.first()
            if dependent is not None:
                refs = [r for r in dependent.owner_references if r.get("uid") != gone]
                _set_owner_references(dependent, refs)
    for relation in owner._meta.related_objects:
        field = relation.field
        served = relation.related_model in served_models().values()
        if not (served and field.null and relation.on_delete is CASCADE):
            continue
        for dependent in relation.related_model._default_manager.filter(**{field.name: owner}):
            setattr(dependent, field.name, None)
            dependent.save(update_fields=[field.name])


def _connect_model(entry: Entry) -> None:
    if not issubclass(entry.model, ObjectMeta):
        return
    label, model = entry.label, entry.model
    post_save.connect(_on_saved, sender=model, dispatch_uid=f"kube-owner-links-{label}")
    post_delete.connect(_on_deleted, sender=model, dispatch_uid=f"kube-gc-{label}")


def connect() -> None:
    """Connect the link writer and the collector to each served kind, now and as registered."""
    registry.add_kind_listener("kube.garbage", _connect_model)
