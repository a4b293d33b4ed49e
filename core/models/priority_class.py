"""PriorityClass (scheduling.k8s.io/v1): a named priority value for jobs and pods."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models
from django.db.models import Q

from kube.models import ObjectMeta
from kube.validators import validate_dns1123_subdomain

__all__ = [
    "ClassTable",
    "PreemptionPolicy",
    "PriorityClass",
    "priority_class_table",
    "priority_class_values",
    "stamp_class",
]

# Kubernetes reserves values above one billion for its two system classes.
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CLUSTER_CRITICAL = ("system-cluster-critical", 2_000_000_000)
SYSTEM_NODE_CRITICAL = ("system-node-critical", 2_000_001_000)


class PreemptionPolicy(models.TextChoices):
    """Whether pods of this class may preempt lower-priority pods."""

    PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
    NEVER = "Never"


class PriorityClass(ObjectMeta):
    """A cluster-scoped priority class; at most one may be the global default."""

    name = models.CharField(max_length=253, unique=True, validators=[validate_dns1123_subdomain])
    value = models.IntegerField()
    global_default = models.BooleanField(default=False)
    preemption_policy = models.CharField(
        max_length=32,
        choices=PreemptionPolicy.choices,
        default=PreemptionPolicy.PREEMPT_LOWER_PRIORITY,
    )
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["-value", "name"]
        verbose_name_plural = "priority classes"
        constraints = [
            models.UniqueConstraint(
                fields=["global_default"],
                condition=Q(global_default=True),
                name="one_global_default_priority_class",
            ),
            models.CheckConstraint(
                condition=Q(preemption_policy__in=PreemptionPolicy.values),
                name="priority_class_preemption_policy_valid",
            ),
            models.CheckConstraint(condition=~Q(name=""), name="priority_class_name_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.value})"


def priority_class_values() -> tuple[dict[str, int], int]:
    """Return every PriorityClass's value by name, and the global default's value (or 0).

    What a controller reads once per pass to give its pods and PodGroups their priority
    (Volcano's job controller and the Kubeflow operator alike).
    """
    rows = list(PriorityClass.objects.values_list("name", "value", "global_default"))
    default = next((value for _, value, is_default in rows if is_default), 0)
    return {name: value for name, value, _ in rows}, default


@dataclass(frozen=True, slots=True)
class ClassTable:
    """Every class's value and preemption policy, and the global default's name, if any."""

    values: dict[str, int]
    policies: dict[str, str]
    default: str = ""

    @property
    def default_value(self) -> int:
        """Return the global default class's value (0 without one)."""
        return self.values.get(self.default, 0) if self.default else 0

    def resolve(self, name: str) -> tuple[str, int, str] | None:
        """Return ``(class, priority, preemptionPolicy)`` for a pod naming ``name``.

        Kubernetes' Priority admission: a named class must exist (None when it does not); no
        name takes the global default class, and without one priority 0 and
        PreemptLowerPriority.
        """
        name = name or self.default
        if not name:
            return "", 0, PreemptionPolicy.PREEMPT_LOWER_PRIORITY.value
        if name not in self.values:
            return None
        return name, self.values[name], self.policies[name]


def stamp_class(spec: dict[str, object], table: ClassTable) -> None:
    """Write what Priority admission would into a controller's pod ``spec``: its class (the
    global default's when none is named) and that class's preemption policy.

    A class with preemptionPolicy Never wins over any template; a template asking for Never
    under a class that preempts keeps Never (Kubernetes would refuse that pod, and a refused
    pod does not preempt either). A missing class leaves the spec as it is: the controller
    warns about it (PriorityClassNotFound) and the pod gets priority 0.
    """
    resolved = table.resolve(str(spec.get("priorityClassName") or ""))
    if resolved is None:
        return
    name, _value, policy = resolved
    if name:
        spec["priorityClassName"] = name
    if spec.get("preemptionPolicy") != PreemptionPolicy.NEVER:
        spec["preemptionPolicy"] = policy


def priority_class_table() -> ClassTable:
    """Read every PriorityClass once (one query) into a ``ClassTable``."""
    rows = list(
        PriorityClass.objects.values_list("name", "value", "preemption_policy", "global_default")
    )
    return ClassTable(
        values={name: value for name, value, _, _ in rows},
        policies={name: policy for name, _, policy, _ in rows},
        default=next((name for name, _, _, is_default in rows if is_default), ""),
    )
