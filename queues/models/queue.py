"""Queue (scheduling.volcano.sh/v1beta1): weight, capability/deserved/guarantee, state, hierarchy.

Volcano refuses to delete the ``default`` and ``root`` queues; so do we, in every
path that can delete a row: ``Queue.delete()``, ``Queue.objects.filter(...).delete()``
(the custom QuerySet), and the admin (which uses both).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from kube.models import ObjectMeta
from kube.validators import validate_dns1123_label, validate_dns1123_subdomain

__all__ = ["PROTECTED_QUEUE_NAMES", "Queue", "QueueProtectedError", "QueueState"]

PROTECTED_QUEUE_NAMES = frozenset({"default", "root"})


class QueueProtectedError(ValidationError):
    """Raised when a delete would remove the ``default`` or ``root`` queue."""


class QueueState(models.TextChoices):
    """Volcano's queue states; Closing means closed to new jobs but still draining."""

    OPEN = "Open"
    CLOSED = "Closed"
    CLOSING = "Closing"
    UNKNOWN = "Unknown"


class QueueAction(models.TextChoices):
    """The queue controller's actions (Volcano's bus actions): a Command carries the first two,
    SyncQueue is every pass's."""

    OPEN_QUEUE = "OpenQueue"
    CLOSE_QUEUE = "CloseQueue"
    SYNC_QUEUE = "SyncQueue"


class DequeueStrategy(models.TextChoices):
    """How a queue hands out its jobs when the head cannot be placed (CRD default: traverse)."""

    FIFO = "fifo"
    TRAVERSE = "traverse"


class QueueQuerySet(models.QuerySet["Queue"]):
    """Queries over queues whose bulk delete refuses the protected queues."""

    def delete(self) -> tuple[int, dict[str, int]]:
        """Delete the queues, unless one of them is ``default`` or ``root`` (then delete none)."""
        protected = sorted(
            self.filter(name__in=PROTECTED_QUEUE_NAMES).values_list("name", flat=True)
        )
        if protected:
            raise QueueProtectedError(
                f"queue {', '.join(protected)} can not be deleted", code="protected"
            )
        return super().delete()


class Queue(ObjectMeta):
    """A Volcano queue: its share of the cluster (weight, deserved) and its limits."""

    name = models.CharField(max_length=63, unique=True, validators=[validate_dns1123_label])

    # spec
    weight = models.PositiveIntegerField(default=1)
    capability = models.JSONField(default=dict, blank=True, help_text="resource → milli-units")
    deserved = models.JSONField(default=dict, blank=True, help_text="resource → milli-units")
    guarantee = models.JSONField(default=dict, blank=True, help_text="resource → milli-units")
    reclaimable = models.BooleanField(default=True)
    parent = models.CharField(
        max_length=253, blank=True, validators=[validate_dns1123_subdomain], db_index=True
    )
    priority = models.PositiveIntegerField(default=0)
    dequeue_strategy = models.CharField(
        max_length=16, choices=DequeueStrategy.choices, default=DequeueStrategy.TRAVERSE
    )
    # {nodeGroupAffinity, nodeGroupAntiAffinity: {required..., preferred...: [node group]}}
    affinity = models.JSONField(null=True, blank=True, help_text="nodegroup (anti-)affinity")

    # status (the queue controller and the scheduler write these)
    state = models.CharField(max_length=16, choices=QueueState.choices, default=QueueState.OPEN)
    pending = models.PositiveIntegerField(default=0, help_text="PodGroups Pending")
    inqueue = models.PositiveIntegerField(default=0, help_text="PodGroups Inqueue")
    running = models.PositiveIntegerField(default=0, help_text="PodGroups Running")
    completed = models.PositiveIntegerField(default=0, help_text="PodGroups Completed")
    unknown = models.PositiveIntegerField(default=0, help_text="PodGroups Unknown")
    allocated = models.JSONField(default=dict, blank=True, help_text="resource → milli-units")
    # The share the scheduler computed at its last session's open (queues.share_status): not part
    # of Volcano's QueueStatus, so never in the manifest; read by the console's queue pages.
    share_status = models.JSONField(default=dict, blank=True, editable=False)
    # Its waiting PodGroups (namespace/name) in the order the engine takes them, same session.
    waiting_line = models.JSONField(default=list, blank=True, editable=False)

    objects = QueueQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(weight__gt=0), name="queue_weight_positive"),
            models.CheckConstraint(
                condition=Q(state__in=QueueState.values), name="queue_state_valid"
            ),
            models.CheckConstraint(
                condition=Q(dequeue_strategy__in=DequeueStrategy.values),
                name="queue_dequeue_strategy_valid",
            ),
            models.CheckConstraint(condition=~Q(name=""), name="queue_name_not_empty"),
            models.CheckConstraint(
                condition=~Q(parent=models.F("name")), name="queue_not_own_parent"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_protected(self) -> bool:
        """Return whether Volcano forbids deleting this queue (``default`` and ``root``)."""
        return self.name in PROTECTED_QUEUE_NAMES

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        """Delete the queue, refusing ``default`` and ``root`` as Volcano's webhook does."""
        if self.is_protected:
            raise QueueProtectedError(f"queue {self.name} can not be deleted", code="protected")
        return super().delete(*args, **kwargs)
