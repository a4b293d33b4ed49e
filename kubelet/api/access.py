"""The kubelet's API names, registered with the kernel (``register``): who may read a pod's log
(``pods/log``, read-only, in granted namespaces) and inject faults (``faults``: operators only).

``metrics.k8s.io`` is read under the ``nodes`` and ``pods`` names core registers; its two
resources are listed in discovery from here.
"""

from __future__ import annotations

from accounts.roles import EVERYONE, OPERATORS
from kube import registry
from kube.registry import AccessRule
from kube.schemas import array_of, object_of, string
from kubelet.api.resource_metrics import GROUP_VERSION as METRICS_GROUP_VERSION

__all__ = ["register"]

_USAGE = {
    "type": "object",
    "description": "Resource name to the quantity used (cpu: 250m, memory: 64Mi).",
    "additionalProperties": {"x-kubernetes-int-or-string": True},
}
_SAMPLE = {
    "timestamp": string("When the usage was sampled (RFC 3339).", format="date-time"),
    "window": string("The window the usage was averaged over (a Go duration)."),
}
# The kinds' OpenAPI schemas, as metrics-server describes them (``kubectl explain``).
SCHEMAS = {
    "NodeMetrics": (
        "The resource usage of one node (what kubectl top nodes shows).",
        {**_SAMPLE, "usage": _USAGE},
    ),
    "PodMetrics": (
        "The resource usage of one pod's containers (what kubectl top pods shows).",
        {
            **_SAMPLE,
            "containers": array_of(
                "Each container's usage.",
                object_of(
                    "One container's usage.",
                    {"name": string("The container's name."), "usage": _USAGE},
                ),
            ),
        },
    ),
}


def register() -> None:
    """Register the kubelet's API names and metrics.k8s.io's discovery (``KubeletConfig.ready``)."""
    registry.register_access("pods/log", AccessRule(EVERYONE, frozenset(), namespaced=True))
    registry.register_access("faults", AccessRule(OPERATORS, OPERATORS, namespaced=False))
    # metrics-server's group, as `kubectl top` finds it.
    for name, kind, namespaced in (("nodes", "NodeMetrics", False), ("pods", "PodMetrics", True)):
        registry.register_api_resource(
            METRICS_GROUP_VERSION,
            {
                "name": name,
                "singularName": "",
                "namespaced": namespaced,
                "kind": kind,
                "verbs": ["get", "list"],
            },
            schema=SCHEMAS[kind],
        )
