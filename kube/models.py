"""The kernel's rows and bases: ObjectMeta, the change stream, generations, owner links, and
the failpoints armed for every process (``kube.failpoints``).

``ObjectMeta`` and ``KubeObject`` are the abstract bases of every Kubernetes object row (each
app's models subclass them). The change stream: one row per write of a Kubernetes object, in
the writer's transaction.

The row's id is the global ``resourceVersion``: the stored object takes it as
its own ``metadata.resourceVersion``, a list reports the highest id as the
list's, and ``?watch=1&resourceVersion=N`` replays every row after ``N``. Since
the row is written inside the same transaction as the object, a watch that
starts from a list's version misses nothing in between. The console's live
pages read the same table (ROADMAP: one change stream).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, models, router, transaction

from kube.validators import validate_dns1123_label, validate_dns1123_subdomain

__all__ = [
    "ChangeEvent",
    "ChangeType",
    "Failpoint",
    "Generation",
    "KubeObject",
    "ObjectMeta",
    "OwnerLink",
]


class ObjectMeta(models.Model):
    """Abstract base: the ``metadata`` every Kubernetes object row carries (besides its name).

    ``uid`` is assigned on first save (so an object loaded from a manifest but not
    stored has none, and its dump shows none); ``resource_version`` goes up by one
    on every save of an existing row, as Kubernetes' does on every write.

    ``owner_references`` are the references a client sent (the ones our controllers imply,
    a pod's job, come from foreign keys and are merged in when the object is written out);
    garbage collection finds dependents through ``kube.models.OwnerLink``, never
    by reading this JSON. ``finalizers`` keep a deleted object, marked by
    ``deletion_timestamp``, until clients remove them (``kube.finalizers``).
    """

    uid = models.UUIDField(null=True, blank=True, editable=False)
    resource_version = models.PositiveBigIntegerField(default=1, editable=False)
    labels = models.JSONField(default=dict, blank=True)
    annotations = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    owner_references = models.JSONField(default=list, blank=True)
    finalizers = models.JSONField(default=list, blank=True)
    deletion_timestamp = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save the row, giving it a uid on insert and a new resourceVersion on update.

        In one transaction with its change event (``kube.changes`` inserts it on ``pre_save``,
        before the row): outside one, the event committed first, and a watch reading in between
        sent the row as it stood before the change, then never heard of the write.
        """
        if self.uid is None:
            self.uid = uuid.uuid4()
        if not self._state.adding:
            self.resource_version += 1
            update_fields = kwargs.get("update_fields")
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "resource_version"}
        using = kwargs.get("using") or router.db_for_write(type(self), instance=self)
        with transaction.atomic(using=using, savepoint=False):
            super().save(*args, **kwargs)


class KubeObject(ObjectMeta):
    """Abstract base of namespaced objects (Job, PodGroup, Pod, Command)."""

    namespace = models.CharField(
        max_length=63, default="default", validators=[validate_dns1123_label]
    )
    name = models.CharField(max_length=253, validators=[validate_dns1123_subdomain])

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


class ChangeType(models.TextChoices):
    """Kubernetes' watch event types."""

    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"


class ChangeEvent(models.Model):
    """One write of one object: which object, how, and (for deletes) its last state."""

    kind = models.CharField(max_length=63, help_text="Model label, e.g. jobs.job")
    type = models.CharField(max_length=16, choices=ChangeType.choices)
    namespace = models.CharField(max_length=63, blank=True)
    name = models.CharField(max_length=253)
    # Rows that are inserted are found by namespace/name; rows without a name (Events) by pk.
    object_pk = models.BigIntegerField(default=0)
    # A deleted row can no longer be rendered, so its last manifest travels with the event.
    last_state = models.JSONField(null=True, blank=True)
    # Not indexed: the prune finds its cut by id (``changes.prune_changes``), and an index here
    # would cost every write a second B-tree entry per event.
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["kind", "id"], name="change_kind_id")]

    def __str__(self) -> str:
        return f"{self.id} {self.type} {self.kind} {self.namespace}/{self.name}"


class Generation(models.Model):
    """``metadata.generation`` of one object: bumped by each write that changes its spec.

    Kept beside the object rows (keyed by uid) so the apps' tables need no column
    for it; an object without a row here is at generation 1.
    """

    uid = models.UUIDField(unique=True)
    generation = models.PositiveBigIntegerField(default=1)

    def __str__(self) -> str:
        return f"{self.uid} @ {self.generation}"


class OwnerLink(models.Model):
    """One ``metadata.ownerReferences`` entry a client set: owner uid → the dependent object.

    Garbage collection asks "what did this owner own?" by ``owner_uid`` (indexed), so deleting
    an object never scans the JSON of every row. ``owner_kind`` is the owner's model label when
    the reference names a kind served here (``""`` otherwise: such an owner cannot be checked,
    and counts as alive). Links are rewritten whenever the dependent's references change
    (``kube.garbage``); one whose dependent is gone is dropped when met.
    """

    owner_uid = models.UUIDField(db_index=True)
    owner_kind = models.CharField(max_length=63, blank=True, help_text="Model label, e.g. jobs.job")
    dependent_kind = models.CharField(max_length=63, help_text="Model label, e.g. core.pod")
    dependent_pk = models.BigIntegerField()
    dependent_namespace = models.CharField(max_length=63, blank=True)
    dependent_name = models.CharField(max_length=253)

    class Meta:
        indexes = [
            models.Index(fields=["dependent_kind", "dependent_pk"], name="owner_link_dependent")
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["owner_uid", "dependent_kind", "dependent_pk"], name="owner_link_unique"
            )
        ]

    def __str__(self) -> str:
        where = f"{self.dependent_namespace}/" if self.dependent_namespace else ""
        return f"{self.owner_uid} owns {self.dependent_kind} {where}{self.dependent_name}"


class Failpoint(models.Model):
    """A failpoint armed for every process (``manage.py failpoint``; ``kube/failpoints.py``).

    ``times`` None fires at every hit; a number fires that many times in all processes together.
    """

    name = models.CharField(max_length=64, unique=True)
    action = models.CharField(max_length=16, blank=True)
    value = models.FloatField(default=0)
    match = models.CharField(max_length=253, blank=True)
    times = models.PositiveIntegerField(null=True, blank=True)
    armed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"failpoint {self.name}={self.action}"

    @staticmethod
    def shared_counts() -> bool:
        """Return True where ``use`` can count across processes (PostgreSQL)."""
        return connection.vendor == "postgresql"

    @classmethod
    def use(cls, pk: int) -> bool:
        """Take one of the row's ``times`` (PostgreSQL only); False when none is left.

        On a connection of its own, committed at once, so that a kill right after (which rolls
        back the caller's transaction) cannot give the firing back.
        """
        own = connections.create_connection(DEFAULT_DB_ALIAS)
        try:
            with own.cursor() as cursor:
                cursor.execute(
                    f"UPDATE {cls._meta.db_table} SET times = times - 1 "
                    "WHERE id = %s AND times > 0",
                    [pk],
                )
                return bool(cursor.rowcount == 1)
        finally:
            own.close()
