"""Objects as the API shows them: the manifest plus the metadata Kubernetes always fills in."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from typing import Any

from django.utils import timezone

from apis.wire import format_time
from kube.models import Generation, ObjectMeta
from kube.resources import Resource

__all__ = ["generations", "render", "render_list"]


def generations(instances: Iterable[Any]) -> dict[uuid.UUID, int]:
    """Return the stored generation of each instance that has one (one query)."""
    uids = [uid for instance in instances if (uid := getattr(instance, "uid", None)) is not None]
    if not uids:
        return {}
    return dict(Generation.objects.filter(uid__in=uids).values_list("uid", "generation"))


def _created(instance: Any) -> dt.datetime:
    """Return when ``instance`` was stored (now, for one a dry run shows unstored)."""
    created: dt.datetime | None = instance.created_at
    return created if created is not None else timezone.now()


def _generation_of(instance: Any) -> int:
    """Return the generation annotated by ``Resource.queryset`` or, failing that, stored."""
    if hasattr(instance, "kube_generation"):
        return int(instance.kube_generation or 1)
    uid = instance.uid
    return generations([instance]).get(uid, 1) if uid is not None else 1


def render(
    resource: Resource,
    instance: Any,
    *,
    children: list[Any] | None = None,
    generation: int | None = None,
) -> dict[str, Any]:
    """Return the object with kind, apiVersion and full metadata (an unsaved one gets a uid)."""
    manifest = resource.manifest.dump(instance, children)
    meta = manifest["metadata"]
    if isinstance(instance, ObjectMeta):  # Events carry no uid or version of their own
        if instance.uid is None:  # a dry-run create: show what the stored object would carry
            meta["uid"] = str(uuid.uuid4())
            meta.setdefault("resourceVersion", "")
        meta.setdefault("creationTimestamp", format_time(_created(instance)))
        if generation is None:
            generation = _generation_of(instance)
        meta["generation"] = generation
    return manifest


def render_list(
    resource: Resource, instances: list[Any], *, resource_version: int, cont: str, remaining: int
) -> dict[str, Any]:
    """Return ``<Kind>List`` of ``instances`` with the list metadata."""
    items = [render(resource, item) for item in instances]
    meta: dict[str, Any] = {"resourceVersion": str(resource_version)}
    if cont:
        meta["continue"] = cont
        meta["remainingItemCount"] = remaining
    return {
        "apiVersion": resource.api_version,
        "kind": f"{resource.kind}List",
        "metadata": meta,
        "items": items,
    }
