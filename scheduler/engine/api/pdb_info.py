"""A PodDisruptionBudget as the pdb plugin reads it: namespace, selector and two status fields.

Volcano's counterpart: the ``policy/v1`` objects its pdb plugin lists from the informer
(``pkg/scheduler/plugins/pdb``). Only ``spec.selector``, ``status.disruptionsAllowed`` and
``status.disruptedPods`` are read; ``minAvailable``/``maxUnavailable`` are the disruption
controller's business (it turns them into ``disruptionsAllowed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["PdbInfo", "PdbSelector", "SelectorRequirement"]

# (key, operator, values): one ``matchExpressions`` entry, already validated.
SelectorRequirement = tuple[str, str, tuple[str, ...]]


@dataclass(slots=True, frozen=True)
class PdbSelector:
    """A ``metav1.LabelSelector`` (labels ANDed with expressions)."""

    match_labels: tuple[tuple[str, str], ...] = ()
    expressions: tuple[SelectorRequirement, ...] = ()

    def is_empty(self) -> bool:
        """Return True when the selector names nothing (``{}``): Kubernetes reads it as
        "everything", and the pdb plugin as "nothing" (it skips empty selectors)."""
        return not self.match_labels and not self.expressions

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Return True when ``labels`` satisfy every label and every expression."""
        for key, value in self.match_labels:
            if labels.get(key) != value:
                return False
        for key, operator, values in self.expressions:
            present = key in labels
            if operator == "In" and not (present and labels[key] in values):
                return False
            if operator == "NotIn" and present and labels[key] in values:
                return False
            if operator == "Exists" and not present:
                return False
            if operator == "DoesNotExist" and present:
                return False
        return True


@dataclass(slots=True, frozen=True)
class PdbInfo:
    """One budget. ``selector`` None is a PDB without ``spec.selector`` (it selects no pod)."""

    name: str
    namespace: str
    selector: PdbSelector | None = None
    disruptions_allowed: int = 0
    disrupted_pods: frozenset[str] = field(default_factory=frozenset)

    @property
    def uid(self) -> str:
        """Return ``<namespace>/<name>``."""
        return f"{self.namespace}/{self.name}"

    def selects(self, namespace: str, labels: Mapping[str, str]) -> bool:
        """Return True when this budget covers a pod of ``namespace`` with ``labels``.

        A nil or empty selector covers no pod (the plugin skips them), nor does a selector of
        another namespace.
        """
        if namespace != self.namespace or self.selector is None or self.selector.is_empty():
            return False
        return self.selector.matches(labels)
