"""PodDisruptionBudget manifests (policy/v1): the spec validated as kube-apiserver does.

``minAvailable`` and ``maxUnavailable`` are each an integer (at least 0) or a percent
(``[0-9]+%``, at most 100%), and a budget may not set both (one without either is valid, as
in policy/v1, and allows no disruption). ``selector`` is a LabelSelector: in policy/v1 an
empty one selects every pod of the namespace, a missing one none.
``unhealthyPodEvictionPolicy`` is ``IfHealthyBudget`` or ``AlwaysAllow``. The status is the
disruption controller's (``core.disruption``), read back as written so that a dumped budget
loads the same.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from apis.wire import Fields, Manifest, format_time
from core.manifests.network_policy import read_label_selector
from core.models import PodDisruptionBudget
from kube.manifest_kinds import Kind, Loaded

__all__ = ["EVICTION_POLICIES", "PodDisruptionBudgetKind", "int_or_percent_error"]

EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")
_PERCENT = re.compile(r"^[0-9]+%$")
_PERCENT_MESSAGE = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%', or '93%', regex used for validation is '[0-9]+%')"
)


def int_or_percent_error(value: object) -> str:
    """Return why ``value`` is no valid minAvailable/maxUnavailable (``""`` if it is one)."""
    shown = json.dumps(value)
    if isinstance(value, bool) or not isinstance(value, int | str):
        return f"Invalid value: {shown}: must be an integer or percentage (e.g '5%')"
    if isinstance(value, int):
        if value < 0:
            return f"Invalid value: {value}: must be greater than or equal to 0"
        return ""
    if not _PERCENT.match(value):
        return f"Invalid value: {shown}: {_PERCENT_MESSAGE}"
    if int(value[:-1]) > 100:
        return f"Invalid value: {shown}: must not be greater than 100%"
    return ""


def _int_or_percent(spec: Fields, key: str) -> int | str | None:
    value = spec.raw(key)
    if value is None:
        return None
    if error := int_or_percent_error(value):
        raise spec.error(key, error)
    assert isinstance(value, int | str)
    return value


class PodDisruptionBudgetKind(Kind):
    """``policy/v1`` PodDisruptionBudget."""

    api_version = "policy/v1"
    kind = "PodDisruptionBudget"
    resource = "poddisruptionbudget.policy"
    model = PodDisruptionBudget
    spec_fields = ("spec",)
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name"}

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        budget: PodDisruptionBudget = loaded.instance
        spec = doc.obj("spec")
        body: dict[str, Any] = {}
        for key in ("minAvailable", "maxUnavailable"):
            value = _int_or_percent(spec, key)
            if value is not None:
                body[key] = value
        if "minAvailable" in body and "maxUnavailable" in body:
            raise spec.error(
                "maxUnavailable",
                "Invalid value: minAvailable and maxUnavailable cannot be both set",
            )
        if spec.raw("selector") is not None:  # null: no selector, which selects nothing
            body["selector"] = read_label_selector(spec.obj("selector"))
        policy = spec.string("unhealthyPodEvictionPolicy")
        if policy and policy not in EVICTION_POLICIES:
            allowed = ", ".join(f'"{p}"' for p in EVICTION_POLICIES)
            raise spec.error(
                "unhealthyPodEvictionPolicy",
                f'Unsupported value: "{policy}": supported values: {allowed}',
            )
        if policy:
            body["unhealthyPodEvictionPolicy"] = policy
        spec.done()
        budget.spec = body
        self.read_status(doc.obj("status"), budget)

    def read_status(self, status: Fields, budget: PodDisruptionBudget) -> None:
        """Read the controller's status (``/status`` writes; a dumped budget loads back)."""
        budget.disruptions_allowed = status.integer("disruptionsAllowed", 0, minimum=0)
        budget.current_healthy = status.integer("currentHealthy", 0, minimum=0)
        budget.desired_healthy = status.integer("desiredHealthy", 0, minimum=0)
        budget.expected_pods = status.integer("expectedPods", 0, minimum=0)
        budget.observed_generation = status.integer("observedGeneration", 0, minimum=0)
        disrupted = status.obj("disruptedPods")
        budget.disrupted_pods = {}
        for name in disrupted.names():
            when = disrupted.time(name)
            if when is None:
                raise disrupted.error(name, "expected an RFC 3339 time, got null")
            budget.disrupted_pods[name] = format_time(when)
        budget.conditions = status.json("conditions", [])
        status.done()

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        budget: PodDisruptionBudget = instance
        status: Manifest = {}
        if budget.observed_generation:
            status["observedGeneration"] = budget.observed_generation
        if budget.disrupted_pods:
            status["disruptedPods"] = dict(sorted(budget.disrupted_pods.items()))
        # Never left out on the wire (no omitempty in policy/v1), kubectl's column reads it.
        status["disruptionsAllowed"] = budget.disruptions_allowed
        status["currentHealthy"] = budget.current_healthy
        status["desiredHealthy"] = budget.desired_healthy
        status["expectedPods"] = budget.expected_pods
        if budget.conditions:
            status["conditions"] = list(budget.conditions)
        return {"spec": dict(budget.spec), "status": status}
