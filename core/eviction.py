"""The ``pods/eviction`` subresource: delete a pod unless that breaks its disruption budget.

As kube-apiserver's eviction REST (``POST .../pods/{name}/eviction`` with a ``policy/v1``
Eviction): a pod that has ended, is Pending or is already being deleted is deleted at once;
so is one no budget selects. A pod that more than one budget selects is refused (500, as
kube-apiserver does). Otherwise its budget decides:

- an unready pod is deleted without touching the budget when the budget allows it
  (``unhealthyPodEvictionPolicy: AlwaysAllow``, or the default ``IfHealthyBudget`` with the
  budget's healthy pods at or above its desired count);
- a budget whose status is behind its spec (``observedGeneration``) refuses with 429 and
  "is still being processed by the server", one that allows no disruption with 429 "Cannot
  evict pod as it would violate the pod's disruption budget." and a ``DisruptionBudget``
  cause naming how many healthy pods it needs and has;
- otherwise one disruption is taken off ``disruptionsAllowed`` and the pod is noted in
  ``disruptedPods`` (so the disruption controller does not count it healthy while it goes),
  and the pod is deleted gracefully, as a DELETE would: its job hears it was evicted.

The budget's row is locked for the check and the write, so two evictions never both take
the last disruption.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone
from rest_framework.response import Response

from apis.wire import format_time
from core.api.resources import PODS
from core.disruption import budget_selects, is_healthy, set_allowed_condition
from core.models import Pod, PodDisruptionBudget, PodPhase
from kube.render import generations
from kube.status import KubeError
from kube.store import object_delete

__all__ = ["DISRUPTION_BUDGET_CAUSE", "VIOLATION", "evict"]

VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
DISRUPTION_BUDGET_CAUSE = "DisruptionBudget"
# kube-apiserver refuses an eviction when this many evicted pods wait to be confirmed gone.
MAX_DISRUPTED_PODS = 2000


class TooManyRequestsError(KubeError):
    """kube-apiserver's 429 of an eviction: a ``DisruptionBudget`` cause, maybe a retry delay."""

    def __init__(self, cause: str, *, retry_after: int = 0) -> None:
        super().__init__(429, VIOLATION)
        self.cause = cause
        self.retry_after = retry_after

    def body(self) -> dict[str, Any]:
        """Return the Status with its cause (``reason: DisruptionBudget``) and retry delay."""
        status = super().body()
        details: dict[str, Any] = {
            "causes": [{"reason": DISRUPTION_BUDGET_CAUSE, "message": self.cause}]
        }
        if self.retry_after:
            details["retryAfterSeconds"] = self.retry_after
        status["details"] = details
        return status

    def response(self) -> Response:
        """Return the Status, with ``Retry-After`` when a delay is suggested."""
        answer = super().response()
        if self.retry_after:
            answer["Retry-After"] = str(self.retry_after)
        return answer


def _can_ignore_budgets(pod: Pod) -> bool:
    """A pod that ended, waits to start or is going already disrupts nothing more."""
    if pod.phase in (PodPhase.SUCCEEDED, PodPhase.FAILED, PodPhase.PENDING):
        return True
    return pod.deletion_time is not None or pod.deletion_timestamp is not None


def _budget_of(pod: Pod) -> PodDisruptionBudget | None:
    """Return the one budget that selects ``pod`` (locked), None for none; 500 for several."""
    # policy/v1: an empty selector selects every pod, unlabelled ones too; a missing one none.
    budgets = PodDisruptionBudget.objects.select_for_update().filter(namespace=pod.namespace)
    found = [budget for budget in budgets if budget_selects(budget, pod.labels)]
    if len(found) > 1:
        raise KubeError(
            500,
            "This pod has more than one PodDisruptionBudget, which the eviction subresource "
            "does not support.",
        )
    return found[0] if found else None


def _deletes_unhealthy(pod: Pod, budget: PodDisruptionBudget, generation: int) -> bool:
    """Return whether an unready pod may go without taking a disruption from ``budget``."""
    if is_healthy(pod) or budget.observed_generation != generation:
        return False
    if budget.spec.get("unhealthyPodEvictionPolicy") == "AlwaysAllow":
        return True
    return budget.desired_healthy > 0 and budget.current_healthy >= budget.desired_healthy


def _take_disruption(
    pod: Pod, budget: PodDisruptionBudget, generation: int, *, dry_run: bool
) -> None:
    """Take one disruption from ``budget`` for ``pod``, or refuse (429) when it has none."""
    if budget.observed_generation < generation:
        raise TooManyRequestsError(
            f"The disruption budget {budget.name} is still being processed by the server.",
            retry_after=10,
        )
    if len(budget.disrupted_pods or {}) > MAX_DISRUPTED_PODS:
        raise KubeError(
            403,
            f'poddisruptionbudgets.policy "{budget.name}" is forbidden: DisruptedPods map too '
            "big - too many evictions not confirmed by PDB controller",
            kind="poddisruptionbudgets",
            name=budget.name,
            group="policy",
        )
    if budget.disruptions_allowed <= 0:
        raise TooManyRequestsError(
            f"The disruption budget {budget.name} needs {budget.desired_healthy} healthy pods "
            f"and has {budget.current_healthy} currently"
        )
    if dry_run:
        return
    now = timezone.now()
    budget.disruptions_allowed -= 1
    if budget.disruptions_allowed == 0:
        set_allowed_condition(budget, now)
    budget.disrupted_pods = {**(budget.disrupted_pods or {}), pod.name: format_time(now)}
    budget.save(update_fields=["disruptions_allowed", "disrupted_pods", "conditions"])


def evict(pod: Pod, options: Mapping[str, Any], *, dry_run: bool) -> None:
    """Evict ``pod`` (locked by the caller) by its budget, with the Eviction's DeleteOptions."""
    grace = options.get("gracePeriodSeconds")
    with transaction.atomic():
        if not _can_ignore_budgets(pod) and (budget := _budget_of(pod)) is not None:
            generation = generations([budget]).get(budget.uid, 1) if budget.uid else 1
            if not _deletes_unhealthy(pod, budget, generation):
                _take_disruption(pod, budget, generation, dry_run=dry_run)
        object_delete(
            PODS,
            pod,
            dry_run=dry_run,
            preconditions=options.get("preconditions"),
            propagation=str(options.get("propagationPolicy") or "Background"),
            grace_period=grace if isinstance(grace, int) else None,
        )
