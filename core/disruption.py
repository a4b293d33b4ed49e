"""The disruption controller: each PodDisruptionBudget's status, from the pods it selects.

As kube-controller-manager's (``pkg/controller/disruption``). For each budget:

- its pods are those of its namespace its ``selector`` matches (policy/v1: an empty
  selector matches every pod, a missing one none), whatever their phase;
- ``expectedPods`` and ``desiredHealthy``: with an integer ``minAvailable``, the number of
  matched pods and minAvailable itself; with a percent ``minAvailable`` or any
  ``maxUnavailable``, the sum of the scales of the pods' controllers, the percent rounded
  up. Kubernetes reads a controller's scale from its ``/scale`` subresource; no kind served
  here has one (Volcano's Job CRD declares only ``/status``), so a budget of this sort over
  pods that have a controller fails to sync as it would on a cluster ("jobs.batch.volcano.sh
  does not implement the scale subresource"): no disruption allowed, condition
  ``DisruptionAllowed=False`` with reason ``SyncFailed``. Pods without a controller are left
  out of the sum, with a warning event, as Kubernetes does;
- ``currentHealthy``: the matched pods that are Ready (Running, containers ready), not being
  deleted and not just evicted (``disruptedPods``, kept two simulated minutes at most);
- ``disruptionsAllowed`` = currentHealthy - desiredHealthy, never below 0, and 0 while no pod
  is expected; ``observedGeneration`` the budget's generation; the ``DisruptionAllowed``
  condition (``SufficientPods`` / ``InsufficientPods``).

Level-triggered: each pass computes every status and writes only those that changed; a pass
with no budget costs one query, and one that finds the budgets and their pods unchanged since
the last pass (an aggregate of their versions) three, at most ten seconds in a row.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import Count, Max, Sum

from apis.wire import format_time
from core.events import record_event
from core.manifests.pod_status import containers_ready
from core.models import EventType, Pod, PodDisruptionBudget
from kube import clock, registry
from kube.render import generations
from kube.selectors import Requirement

__all__ = [
    "DELETION_TIMEOUT_SECONDS",
    "budget_selects",
    "is_healthy",
    "reconcile_disruption_budgets",
    "set_allowed_condition",
]

# How long an evicted pod counts as disrupted before the controller gives up waiting for it
# to be deleted (Kubernetes' DeletionTimeout), in simulated seconds.
DELETION_TIMEOUT_SECONDS = 120
DISRUPTION_ALLOWED = "DisruptionAllowed"
# Who records the events: kube-controller-manager's disruption controller.
CONTROLLER_MANAGER = "controllermanager"
_EXPRESSION_OPERATORS = {
    "In": "in",
    "NotIn": "notin",
    "Exists": "exists",
    "DoesNotExist": "!exists",
}


def _requirements(selector: Mapping[str, Any]) -> list[Requirement]:
    found = [
        Requirement(k, "in", (str(v),)) for k, v in (selector.get("matchLabels") or {}).items()
    ]
    for expression in selector.get("matchExpressions") or []:
        operator = _EXPRESSION_OPERATORS[str(expression["operator"])]
        values = tuple(str(v) for v in expression.get("values") or ())
        found.append(Requirement(str(expression["key"]), operator, values))
    return found


def budget_selects(budget: PodDisruptionBudget, labels: Mapping[str, str]) -> bool:
    """Return whether ``budget``'s selector matches a pod with ``labels`` (same namespace)."""
    selector = budget.spec.get("selector")
    if selector is None:
        return False
    return all(requirement.test_labels(labels) for requirement in _requirements(selector))


def _deleting(pod: Pod) -> bool:
    return pod.deletion_time is not None or pod.deletion_timestamp is not None


def is_healthy(pod: Pod) -> bool:
    """Return whether ``pod`` counts as healthy for a budget: Ready (Kubernetes' IsPodReady)."""
    return containers_ready(pod)


def set_allowed_condition(
    budget: PodDisruptionBudget,
    now: dt.datetime,
    *,
    reason: str = "",
    message: str = "",
) -> None:
    """Set the ``DisruptionAllowed`` condition from the status (or a sync failure's reason).

    ``lastTransitionTime`` moves only when the condition's status does (SetStatusCondition).
    """
    allowed = budget.disruptions_allowed > 0 and not reason
    status = "True" if allowed else "False"
    reason = reason or ("SufficientPods" if allowed else "InsufficientPods")
    conditions = [c for c in budget.conditions or [] if isinstance(c, dict)]
    before = next((c for c in conditions if c.get("type") == DISRUPTION_ALLOWED), None)
    since = (
        before["lastTransitionTime"]
        if before is not None and before.get("status") == status
        else format_time(now)
    )
    condition = {
        "type": DISRUPTION_ALLOWED,
        "status": status,
        "observedGeneration": budget.observed_generation,
        "lastTransitionTime": since,
        "reason": reason,
        "message": message,
    }
    others = [c for c in conditions if c.get("type") != DISRUPTION_ALLOWED]
    budget.conditions = (
        [*others, condition]
        if before is None
        else [condition if c is before else c for c in conditions]
    )


def _scaled(value: int | str, total: int) -> int:
    """Return an int-or-percent against ``total``, a percent rounded up (GetScaledValue...)."""
    if isinstance(value, int):
        return value
    return math.ceil(int(value[:-1]) * total / 100)


class SyncFailedError(Exception):
    """A budget's expected pod count cannot be worked out (Kubernetes' sync error)."""


def _controller_of(pod: Pod) -> Mapping[str, Any] | None:
    """Return the pod's controller reference (its job's, or one a client wrote)."""
    if pod.job_id is not None:
        return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job"}
    for ref in pod.owner_references or []:
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return ref
    return None


def _scale_of(ref: Mapping[str, Any]) -> int:
    """Return the scale of a pod's controller: the ``/scale`` subresource, which no served kind
    has (so this always fails, naming the resource as kube-controller-manager does)."""
    api_version, kind = str(ref.get("apiVersion", "")), str(ref.get("kind", ""))
    group, _, version = api_version.rpartition("/")
    for entry in registry.entries():
        resource = entry.resource
        if resource.kind == kind and resource.group == group and resource.version == version:
            raise SyncFailedError(f"{resource.qualified} does not implement the scale subresource")
    raise SyncFailedError(f'no matches for kind "{kind}" in version "{api_version}"')


def _expected_scale(pods: list[Pod]) -> tuple[int, list[str]]:
    """Return the sum of the pods' controllers' scales and the pods without a controller."""
    unmanaged, scales = [], {}
    for pod in pods:
        ref = _controller_of(pod)
        if ref is None:
            unmanaged.append(pod.name)
            continue
        key = (ref.get("apiVersion"), ref.get("kind"), ref.get("name"), pod.job_id)
        if key not in scales:
            scales[key] = _scale_of(ref)
    return sum(scales.values()), unmanaged


def _expected(budget: PodDisruptionBudget, pods: list[Pod]) -> tuple[int, int, list[str]]:
    """Return (expectedPods, desiredHealthy, unmanaged pods) of ``budget`` over ``pods``."""
    spec = budget.spec
    if "maxUnavailable" in spec:
        expected, unmanaged = _expected_scale(pods)
        return expected, max(0, expected - _scaled(spec["maxUnavailable"], expected)), unmanaged
    minimum = spec.get("minAvailable")
    if isinstance(minimum, int):
        return len(pods), minimum, []
    if isinstance(minimum, str):
        expected, unmanaged = _expected_scale(pods)
        return expected, _scaled(minimum, expected), unmanaged
    return 0, 0, []


# An event to record about an object once its budget's status changed: (object, kind,
# reason, type, message). The controller passes every cycle; events say what changed.
_Event = tuple[Any, str, str, str, str]


def _disrupted(
    budget: PodDisruptionBudget, pods: list[Pod], now: dt.datetime, events: list[_Event]
) -> dict[str, str]:
    """Return the evicted pods still to be deleted, dropping those deleted or overdue."""
    kept = {}
    timeout = clock.real(DELETION_TIMEOUT_SECONDS)
    by_name = {pod.name: pod for pod in pods}
    for name, stamp in (budget.disrupted_pods or {}).items():
        pod = by_name.get(name)
        if pod is None or _deleting(pod):
            continue
        try:
            since = dt.datetime.fromisoformat(str(stamp))
        except ValueError:
            continue
        if since + timeout < now:
            message = (
                f"Pod was expected by PDB {budget.namespace}/{budget.name} "
                "to be deleted but it wasn't"
            )
            events.append((pod, "Pod", "NotDeleted", EventType.WARNING, message))
            continue
        kept[name] = str(stamp)
    return kept


_STATUS_FIELDS = (
    "disruptions_allowed",
    "current_healthy",
    "desired_healthy",
    "expected_pods",
    "disrupted_pods",
    "observed_generation",
    "conditions",
)


def _status(budget: PodDisruptionBudget) -> tuple[object, ...]:
    return tuple(getattr(budget, name) for name in _STATUS_FIELDS)


_UNMANAGED = (
    "Pods selected by this PodDisruptionBudget (selector: {selector}) were found to be "
    "unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may "
    'result in undefined behavior. To account for these pods please set ".spec.minAvailable" '
    "field of the PDB to an integer value."
)


def _sync(budget: PodDisruptionBudget, pods: list[Pod], generation: int, now: dt.datetime) -> bool:
    """Bring ``budget``'s status up to date; return whether it changed (and was saved)."""
    before = _status(budget)
    events: list[_Event] = []
    kind = "PodDisruptionBudget"
    if not pods:
        events.append((budget, kind, "NoPods", EventType.NORMAL, "No matching pods found"))
    try:
        expected, desired, unmanaged = _expected(budget, pods)
    except SyncFailedError as failure:
        message = f"Failed to calculate the number of expected pods: {failure}"
        events.append((budget, kind, "CalculateExpectedPodCountFailed", EventType.WARNING, message))
        budget.disruptions_allowed = 0
        set_allowed_condition(budget, now, reason="SyncFailed", message=str(failure))
    else:
        if unmanaged:
            message = _UNMANAGED.format(selector=budget.spec.get("selector"))
            events.append((budget, kind, "UnmanagedPods", EventType.WARNING, message))
        disrupted = _disrupted(budget, pods, now, events)
        healthy = sum(
            1
            for pod in pods
            if not _deleting(pod) and pod.name not in disrupted and is_healthy(pod)
        )
        allowed = healthy - desired
        budget.current_healthy, budget.desired_healthy = healthy, desired
        budget.expected_pods, budget.disrupted_pods = expected, disrupted
        budget.disruptions_allowed = allowed if expected > 0 and allowed > 0 else 0
        budget.observed_generation = generation
        set_allowed_condition(budget, now)
    if _status(budget) == before:
        return False
    budget.save(update_fields=list(_STATUS_FIELDS))
    for obj, about, reason, event_type, message in events:
        record_event(obj, kind=about, reason=reason, message=message, now=now,
                     event_type=event_type, source=CONTROLLER_MANAGER)  # fmt: skip
    return True


def _pods_by_namespace(namespaces: Iterable[str]) -> dict[str, list[Pod]]:
    found: dict[str, list[Pod]] = {}
    pods = Pod.objects.filter(namespace__in=set(namespaces)).only(
        "name",
        "namespace",
        "uid",
        "labels",
        "owner_references",
        "job",
        "phase",
        "running_since",
        "back_off_until",
        "deletion_time",
        "deletion_timestamp",
    )
    for pod in pods:
        found.setdefault(pod.namespace, []).append(pod)
    return found


# What the last pass read (None: none yet in this process) and when: a pass that finds the
# budgets and their namespaces' pods as the last one did skips the work, unless the last is
# older than ``RECHECK`` (an evicted pod's wait in ``disruptedPods`` runs out on the clock).
_last: tuple[object, ...] | None = None
_last_at: dt.datetime | None = None
RECHECK = dt.timedelta(seconds=10)


def _fingerprint(budgets: list[PodDisruptionBudget]) -> tuple[object, ...]:
    pods = Pod.objects.filter(namespace__in={budget.namespace for budget in budgets})
    found = pods.aggregate(n=Count("pk"), v=Sum("resource_version"), top=Max("pk"))
    return (
        tuple((budget.uid, budget.resource_version) for budget in budgets),
        (found["n"], found["v"], found["top"]),
    )


def reconcile_disruption_budgets(now: dt.datetime) -> int:
    """Bring every budget's status up to date; return how many changed."""
    global _last, _last_at
    budgets = list(
        PodDisruptionBudget.objects.filter(deletion_timestamp__isnull=True).order_by("pk")
    )
    if not budgets:
        _last = None
        return 0
    fingerprint = _fingerprint(budgets)
    fresh = _last_at is not None and _last_at <= now < _last_at + RECHECK
    if fingerprint == _last and fresh:
        return 0
    pods = _pods_by_namespace(budget.namespace for budget in budgets)
    stored = generations(budgets)
    changed = 0
    for budget in budgets:
        matched = [
            pod for pod in pods.get(budget.namespace, []) if budget_selects(budget, pod.labels)
        ]
        generation = stored.get(budget.uid, 1) if budget.uid is not None else 1
        changed += _sync(budget, matched, generation, now)
    # The writes changed the budgets' versions: remember what they are now.
    _last = _fingerprint(
        list(PodDisruptionBudget.objects.filter(pk__in=[b.pk for b in budgets]).order_by("pk"))
    )
    _last_at = now
    return changed
