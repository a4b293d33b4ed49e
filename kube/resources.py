"""What the generic views need to know about one served resource (Kubernetes' APIResource).

Each app's ``api/resources.py`` declares its resources with ``Resource(...)`` and registers
them with the kernel (``api/kinds.py``: ``kube.registry.register_kind``); the views in
``kube.views`` then serve them the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import models
from django.db.models import OuterRef, Subquery

from kube.manifest_kinds import Kind
from kube.models import Generation, ObjectMeta

__all__ = ["Resource"]

IDENTITY_FIELDS = frozenset(
    {"id", "uid", "resource_version", "created_at", "name", "namespace", "labels", "annotations"}
)


@dataclass(frozen=True)
class Resource:
    """One resource type: its manifest kind, where it lives and what it allows."""

    manifest: Kind
    plural: str  # "jobs"
    group: str  # "batch.volcano.sh"; "" for the core group
    version: str  # "v1alpha1"
    access: str  # the API name access rules are registered under ("jobs", "queues", ...)
    field_selectors: Mapping[str, str] = field(default_factory=dict)  # wire path → column
    select_related: tuple[str, ...] = ()
    prefetch_related: tuple[str | models.Prefetch[Any], ...] = ()
    status_subresource: bool = False
    # Kubernetes drops ``status`` from creates when it is a subresource; some kinds keep it.
    status_on_create: bool = False
    writable: bool = True
    # The fields ``/status`` writes, when not "all but identity and spec" (Queue keeps its
    # state among the fields a create may set, yet state is status on the wire).
    status_field_names: tuple[str, ...] = ()
    # Wire paths only the scheduler writes (a pod's ``spec.nodeName``: binding is the
    # scheduler's decision): refused on create and on any change through the API.
    scheduler_fields: tuple[str, ...] = ()
    # A foreign key to the user who created the object (a Command's issuer), if any.
    creator_field: str = ""
    # A manifest shown in the API docs (and posted by schemathesis' example phase).
    example: Mapping[str, Any] | None = None

    @property
    def model(self) -> type[models.Model]:
        """Return the model that stores this resource."""
        return self.manifest.model

    @property
    def namespaced(self) -> bool:
        """Return whether objects live in a namespace."""
        return self.manifest.namespaced

    @property
    def kind(self) -> str:
        """Return the object's kind (``Job``)."""
        return self.manifest.kind

    @property
    def api_version(self) -> str:
        """Return the object's apiVersion."""
        return self.manifest.api_version

    @property
    def qualified(self) -> str:
        """Return ``plural.group`` as Kubernetes names it in messages (``jobs.batch.volcano.sh``)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def queryset(self) -> models.QuerySet[Any]:
        """Return every stored object, with what rendering needs fetched in constant queries."""
        queryset = self.model._default_manager.all()
        if issubclass(self.model, ObjectMeta):
            # metadata.generation rides along in the same query (a correlated subquery).
            stored = Generation.objects.filter(uid=OuterRef("uid")).values("generation")[:1]
            queryset = queryset.annotate(kube_generation=Subquery(stored))
        if self.select_related:
            queryset = queryset.select_related(*self.select_related)
        if self.prefetch_related:
            queryset = queryset.prefetch_related(*self.prefetch_related)
        return queryset

    def status_fields(self) -> list[str]:
        """Return the model fields written through ``/status`` (all but identity and spec)."""
        if self.status_field_names:
            return list(self.status_field_names)
        spec = set(self.manifest.spec_fields)
        return [
            f.name
            for f in self.model._meta.concrete_fields
            if f.name not in IDENTITY_FIELDS and f.name not in spec and not f.primary_key
        ]
