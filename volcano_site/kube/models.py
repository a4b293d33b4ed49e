"""The change stream: one row per write of a Kubernetes object, in the writer's transaction.

The row's id is the global ``resourceVersion``: the stored object takes it as
its own ``metadata.resourceVersion``, a list reports the highest id as the
list's, and ``?watch=1&resourceVersion=N`` replays every row after ``N``. Since
the row is written inside the same transaction as the object, a watch that
starts from a list's version misses nothing in between. The console's live
pages read the same table (ROADMAP: one change stream).
"""

from __future__ import annotations

from django.db import models

from scheduler.models import ObjectMeta
from scheduler.validators import validate_dns1123_label

__all__ = ["ChangeEvent", "ChangeType", "Generation", "Namespace", "NamespacePhase", "OwnerLink"]


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


class NamespacePhase(models.TextChoices):
    """Kubernetes' namespace phases."""

    ACTIVE = "Active"
    TERMINATING = "Terminating"


class Namespace(ObjectMeta):
    """A ``v1`` Namespace: namespaced objects can only be created in one that exists."""

    name = models.CharField(max_length=63, unique=True, validators=[validate_dns1123_label])
    phase = models.CharField(
        max_length=16, choices=NamespacePhase.choices, default=NamespacePhase.ACTIVE
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class OwnerLink(models.Model):
    """One ``metadata.ownerReferences`` entry a client set: owner uid → the dependent object.

    Garbage collection asks "what did this owner own?" by ``owner_uid`` (indexed), so deleting
    an object never scans the JSON of every row. ``owner_kind`` is the owner's model label when
    the reference names a kind served here (``""`` otherwise: such an owner cannot be checked,
    and counts as alive). Links are rewritten whenever the dependent's references change
    (``volcano_site.kube.garbage``); one whose dependent is gone is dropped when met.
    """

    owner_uid = models.UUIDField(db_index=True)
    owner_kind = models.CharField(max_length=63, blank=True, help_text="Model label, e.g. jobs.job")
    dependent_kind = models.CharField(max_length=63, help_text="Model label, e.g. jobs.pod")
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
