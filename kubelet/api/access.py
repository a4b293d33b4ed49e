"""The kubelet's API names, registered with the kernel (``register``): who may read a pod's log
(``pods/log``, read-only, in granted namespaces) and inject faults (``faults``: operators only).

``metrics.k8s.io`` is read under the ``nodes`` and ``pods`` names core registers; its two
resources are listed in discovery from here.
"""

from __future__ import annotations

from accounts.roles import EVERYONE, OPERATORS
from kube import registry
from kube.registry import AccessRule
from kubelet.api.resource_metrics import GROUP_VERSION as METRICS_GROUP_VERSION

__all__ = ["register"]


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
        )
