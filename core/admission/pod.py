"""Pod admission (``admit_pod.go``): the job disruption budget annotations of Volcano's pods.

For a pod whose schedulerName is Volcano's, ``volcano.sh/jdb-min-available`` and
``volcano.sh/jdb-max-unavailable`` are mutually exclusive, and each is a positive
integer or a percentage strictly between 0% and 100%.

And what kube-apiserver does with ``spec.schedulingGates``: a pod created with gates gets
``PodScheduled=False`` with reason ``SchedulingGated``; an update may remove gates but never
add one; a pod created with both gates and ``spec.nodeName`` is refused.

Last, kube-apiserver's ResourceQuota admission: a new pod must fit its namespace's quotas
(``core.quota``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.utils import timezone

from apis.errors import ManifestError
from apis.wire import format_time
from core.admission.template import validate_resources
from core.manifests.pod import PodKind
from core.models import Pod, priority_class_table
from core.quota import admit_pod_quota
from kube.actor import current_actor
from kube.admission_causes import AdmissionError, Cause, Causes, CauseType
from kube.manifest_kinds import Loaded
from kube.status import KubeError

__all__ = [
    "JDB_MAX_UNAVAILABLE",
    "JDB_MIN_AVAILABLE",
    "admit_pod",
    "admit_priority",
    "validate_gates",
    "validate_pod",
]

JDB_MIN_AVAILABLE = "volcano.sh/jdb-min-available"
JDB_MAX_UNAVAILABLE = "volcano.sh/jdb-max-unavailable"
VOLCANO = "volcano"
_INTEGER = re.compile(r"^[1-9]\d*$")
_PERCENT = re.compile(r"^([1-9]\d?)%$")


def validate_pod(pod: Pod) -> Causes:
    """Return every violation of ``pod``'s container resources and disruption budget annotations."""
    causes = Causes()
    for group in ("initContainers", "containers"):
        for index, container in enumerate(pod.spec.get(group) or []):
            if isinstance(container, Mapping):
                resources = container.get("resources") or {}
                validate_resources(resources, f"spec.{group}[{index}].resources", causes)
    if pod.scheduler_name != VOLCANO:
        return causes
    present = [key for key in (JDB_MIN_AVAILABLE, JDB_MAX_UNAVAILABLE) if key in pod.annotations]
    if len(present) == 2:
        causes.forbidden(
            f"metadata.annotations[{JDB_MAX_UNAVAILABLE}]",
            f"not allowed to configure {JDB_MIN_AVAILABLE} and {JDB_MAX_UNAVAILABLE} together",
        )
    for key in present:
        value = pod.annotations[key]
        if not (_INTEGER.match(value) or _PERCENT.match(value)):
            causes.invalid(
                f"metadata.annotations[{key}]",
                f"{value!r}: must be a positive integer or a percentage between 1% and 99%",
            )
    return causes


SCHEDULING_GATED = "SchedulingGated"
GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


def _gate_names(spec: Mapping[str, Any]) -> list[str]:
    gates = spec.get("schedulingGates") or []
    return [str(g.get("name", "")) for g in gates if isinstance(g, Mapping)]


def validate_gates(pod: Pod, old: Pod | None, node_name: str) -> Causes:
    """Return the violations of Kubernetes' scheduling gate rules (create and update)."""
    causes = Causes()
    names = _gate_names(pod.spec)
    if old is None:
        if names and node_name:
            causes.forbidden(
                "spec.nodeName", "cannot be set until all schedulingGates have been cleared"
            )
        return causes
    before = set(_gate_names(old.spec))
    for index, name in enumerate(names):
        if name not in before:
            causes.forbidden(
                f"spec.schedulingGates[{index}].name",
                f"only deletion is allowed, but found new scheduling gate '{name}'",
            )
    return causes


def _gated_condition(pod: Pod) -> None:
    """Give a new gated pod the condition kube-apiserver gives it (unless it has one)."""
    if not _gate_names(pod.spec) or any(
        c.get("type") == "PodScheduled" for c in pod.conditions or ()
    ):
        return
    pod.conditions = [
        *(pod.conditions or []),
        {
            "type": "PodScheduled",
            "status": "False",
            "reason": SCHEDULING_GATED,
            "message": GATED_MESSAGE,
            "lastProbeTime": None,
            "lastTransitionTime": format_time(timezone.now()),
        },
    ]


def _forbidden(pod: Pod, message: str) -> Exception:
    """kube-apiserver's admission refusal: 403 through the API, an admission error elsewhere."""
    if current_actor() is None:
        return AdmissionError([Cause("spec.priorityClassName", CauseType.FORBIDDEN, message)])
    return KubeError(403, f'pods "{pod.name}" is forbidden: {message}', kind="pods", name=pod.name)


def admit_priority(pod: Pod) -> None:
    """Kubernetes' Priority admission: the pod's class decides its priority and policy.

    A named class must exist; no name takes the global default class (if one is marked);
    ``spec.priority`` and ``spec.preemptionPolicy`` are filled from the class, and a pod that
    gives either with another value than its class's is refused, as kube-apiserver does.
    """
    spec = pod.spec
    asked = str(spec.get("priorityClassName") or "")
    resolved = priority_class_table().resolve(asked)
    if resolved is None:
        raise _forbidden(pod, f"no PriorityClass with name {asked} was found")
    name, value, policy = resolved
    if pod.priority and pod.priority != value:
        raise _forbidden(pod, f"the integer value of priority ({pod.priority}) must not be "
                              f"provided in pod spec; priority admission controller computed "
                              f"{value} from the given PriorityClass name")  # fmt: skip
    given = spec.get("preemptionPolicy")
    if given and given != policy:
        raise _forbidden(pod, f"the string value of PreemptionPolicy ({given}) must not be "
                              f"provided in pod spec; priority admission controller computed "
                              f"{policy} from the given PriorityClass name")  # fmt: skip
    if name:
        spec["priorityClassName"] = name
    spec["preemptionPolicy"] = policy
    pod.priority = value


def admit_pod(obj: Mapping[str, Any] | Loaded | Pod, *, old: Pod | None = None) -> Loaded:
    """Return ``obj`` as a valid loaded Pod; raise ``AdmissionError`` otherwise (CREATE only)."""
    if isinstance(obj, Pod):
        loaded = Loaded(PodKind(), obj)
    elif isinstance(obj, Loaded):
        loaded = obj
    else:
        try:
            loaded = PodKind().load(obj)
        except ManifestError as exc:
            causes = Causes()
            causes.invalid(exc.field, exc.message)
            causes.raise_if_any(kind="Pod")
            raise
    pod = loaded.instance
    if old is None:
        admit_priority(pod)
    causes = validate_pod(pod) if old is None else Causes()
    causes.extend(validate_gates(pod, old, getattr(pod, "_node_name", "")))
    causes.raise_if_any(kind="Pod", name=pod.name)
    if old is None:
        admit_pod_quota(pod, timezone.now())
        _gated_condition(pod)
    return loaded
