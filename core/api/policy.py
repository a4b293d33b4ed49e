"""PodDisruptionBudget (``policy/v1``) and ResourceQuota (``v1``) as the API server serves them.

Served at kube-apiserver's paths (``/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets``,
``/api/v1/namespaces/{ns}/resourcequotas``), each with a ``/status`` subresource that is the
controllers' (``core.disruption``, ``core.quota``); kubectl's columns are kube-apiserver's
(``kubectl get pdb``: MIN AVAILABLE, MAX UNAVAILABLE, ALLOWED DISRUPTIONS, AGE;
``kubectl get quota``: AGE, REQUEST, LIMIT).
"""

from __future__ import annotations

from typing import Any

from core.manifests.disruption_budget import PodDisruptionBudgetKind
from core.manifests.resource_quota import ResourceQuotaKind
from kube.registry import KUBE_AGE, Column, Entry, Invalid
from kube.resources import Resource
from kube.schemas import array_of, free_object, integer, object_of, string
from kube.serializers import KubeObjectSerializer, list_serializer

__all__ = [
    "DISRUPTION_BUDGETS",
    "DISRUPTION_BUDGET_ENTRY",
    "RESOURCE_QUOTAS",
    "RESOURCE_QUOTA_ENTRY",
    "PolicyListSerializer",
    "PolicySerializer",
]

_BY_NAME = {"metadata.name": "name", "metadata.namespace": "namespace"}

DISRUPTION_BUDGETS = Resource(
    manifest=PodDisruptionBudgetKind(),
    plural="poddisruptionbudgets",
    group="policy",
    version="v1",
    access="poddisruptionbudgets",
    field_selectors=_BY_NAME,
    status_subresource=True,
)
RESOURCE_QUOTAS = Resource(
    manifest=ResourceQuotaKind(),
    plural="resourcequotas",
    group="",
    version="v1",
    access="resourcequotas",
    field_selectors=_BY_NAME,
    status_subresource=True,
)

_INT_OR_PERCENT = {"x-kubernetes-int-or-string": True}
_QUANTITIES = {
    "type": "object",
    "description": "Quota name to quantity (pods: 10, requests.cpu: 4, limits.memory: 8Gi).",
    "additionalProperties": {"x-kubernetes-int-or-string": True},
}
_SELECTOR = object_of(
    "Which pods of the namespace the budget covers; {} covers every pod, none covers none.",
    {
        "matchLabels": {"type": "object", "additionalProperties": {"type": "string"}},
        "matchExpressions": array_of(
            "Label requirements (key, operator In/NotIn/Exists/DoesNotExist, values).",
            free_object("One requirement."),
        ),
    },
)
DISRUPTION_BUDGET_SCHEMA: tuple[str, dict[str, Any]] = (
    "A PodDisruptionBudget: how many of the pods it selects may be disrupted (evicted) at once.",
    {
        "spec": object_of(
            "The budget: minAvailable or maxUnavailable (an integer or a percent), and selector.",
            {
                "minAvailable": {
                    **_INT_OR_PERCENT,
                    "description": "Pods that must stay available after an eviction (5 or 50%).",
                },
                "maxUnavailable": {
                    **_INT_OR_PERCENT,
                    "description": "Pods that may be unavailable after an eviction (1 or 10%).",
                },
                "selector": _SELECTOR,
                "unhealthyPodEvictionPolicy": string(
                    "When an unready pod may be evicted: IfHealthyBudget (default) or AlwaysAllow.",
                    enum=["IfHealthyBudget", "AlwaysAllow"],
                ),
            },
        ),
        "status": object_of(
            "What the disruption controller found: how many pods are healthy and may go.",
            {
                "disruptionsAllowed": integer("How many more pods may be evicted now."),
                "currentHealthy": integer("Selected pods that are Ready."),
                "desiredHealthy": integer("The healthy pods the budget needs."),
                "expectedPods": integer("The pods the budget expects."),
                "disruptedPods": {
                    "type": "object",
                    "description": "Evicted pods not yet deleted, with when they were evicted.",
                    "additionalProperties": {"type": "string", "format": "date-time"},
                },
                "observedGeneration": {
                    "type": "integer",
                    "format": "int64",
                    "description": "The generation the status was computed for.",
                },
                "conditions": array_of(
                    "DisruptionAllowed: True (SufficientPods) or False (InsufficientPods, "
                    "SyncFailed).",
                    free_object("One condition."),
                ),
            },
        ),
    },
)
RESOURCE_QUOTA_SCHEMA: tuple[str, dict[str, Any]] = (
    "A ResourceQuota: the most the namespace's objects may request, and what they use.",
    {
        "spec": object_of("The limits.", {"hard": _QUANTITIES}),
        "status": object_of(
            "What the quota controller enforces and counted.",
            {"hard": _QUANTITIES, "used": _QUANTITIES},
        ),
    },
)

DISRUPTION_BUDGET_ENTRY = Entry(
    DISRUPTION_BUDGETS,
    "poddisruptionbudget",
    ("pdb",),
    columns=(
        Column(
            "Min Available",
            "string",
            "@int-or-percent:minAvailable",
            description="The minimum number of pods that must be available.",
        ),
        Column(
            "Max Unavailable",
            "string",
            "@int-or-percent:maxUnavailable",
            description="The maximum number of pods that may be unavailable.",
        ),
        Column(
            "Allowed Disruptions",
            "integer",
            ".status.disruptionsAllowed",
            description="Calculated number of pods that may be disrupted at this time.",
        ),
        KUBE_AGE,
    ),
    subresources=("status",),
    # After the pods' owners, beside the Services that select the same pods.
    apply_order=77,
    schema=DISRUPTION_BUDGET_SCHEMA,
    example={
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
    },
    invalid=Invalid("spec.minAvailable", "120%"),
)
RESOURCE_QUOTA_ENTRY = Entry(
    RESOURCE_QUOTAS,
    "resourcequota",
    ("quota",),
    columns=(
        KUBE_AGE,
        Column(
            "Request",
            "string",
            "@quota-request",
            description="Request represents a minimum amount of cpu/memory that a "
            "container may consume.",
        ),
        Column(
            "Limit",
            "string",
            "@quota-limit",
            description="Limits control the maximum amount of cpu/memory that a container "
            "may use independent of contention on the node.",
        ),
    ),
    subresources=("status",),
    # Before the workloads it limits (Job 50, Pod 80).
    apply_order=15,
    schema=RESOURCE_QUOTA_SCHEMA,
    example={
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "compute"},
        "spec": {"hard": {"pods": "10", "requests.cpu": "4", "limits.memory": "8Gi"}},
    },
    invalid=Invalid("spec.hard", {"pods": "-1"}, "spec.hard[pods]"),
)


class PolicySerializer(KubeObjectSerializer):
    """A PodDisruptionBudget or ResourceQuota: spec as written, the controller's status."""


PolicyListSerializer = list_serializer(PolicySerializer, "PolicyListSerializer")
