"""PriorityClass manifests (scheduling.k8s.io/v1): fields at the top level, no spec."""

from __future__ import annotations

from typing import Any, ClassVar

from apis.wire import Fields, Manifest
from core.models import PreemptionPolicy, PriorityClass
from kube.manifest_kinds import Kind, Loaded

__all__ = ["PriorityClassKind"]


class PriorityClassKind(Kind):
    """``scheduling.k8s.io/v1`` PriorityClass."""

    api_version = "scheduling.k8s.io/v1"
    kind = "PriorityClass"
    resource = "priorityclass.scheduling.k8s.io"
    model = PriorityClass
    namespaced = False
    spec_fields = ("value", "global_default", "preemption_policy", "description")
    wire_paths: ClassVar[dict[str, str]] = {
        "name": "metadata.name",
        "value": "value",
        "global_default": "globalDefault",
        "__all__": "globalDefault",
    }

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        priority: PriorityClass = loaded.instance
        value = doc.optional_integer("value")
        if value is None:
            raise doc.error("value", "required value")
        if not -(2**31) <= value < 2**31:
            raise doc.error("value", f"must fit a 32-bit integer, got {value}")
        priority.value = value
        priority.global_default = doc.boolean("globalDefault", False)
        priority.preemption_policy = doc.string(
            "preemptionPolicy", PreemptionPolicy.PREEMPT_LOWER_PRIORITY
        )
        if priority.preemption_policy not in PreemptionPolicy.values:
            allowed = ", ".join(PreemptionPolicy.values)
            raise doc.error(
                "preemptionPolicy", f"unsupported value {priority.preemption_policy!r} ({allowed})"
            )
        priority.description = doc.string("description")

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        priority: PriorityClass = instance
        body: Manifest = {
            "value": priority.value,
            "globalDefault": priority.global_default,
            "preemptionPolicy": priority.preemption_policy,
        }
        if priority.description:
            body["description"] = priority.description
        return body
