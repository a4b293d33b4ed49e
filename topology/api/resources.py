"""The topology app's resource: HyperNode (topology.volcano.sh/v1alpha1, cluster-scoped).

Its ``/status`` is the HyperNode controller's (``topology.controller``): a create drops the
status it was given, as kube-apiserver does for a CRD with the status subresource.
"""

from __future__ import annotations

from kube.resources import Resource
from topology.manifests import HyperNodeKind

__all__ = ["HYPER_NODES"]

HYPER_NODES = Resource(
    manifest=HyperNodeKind(),
    plural="hypernodes",
    group="topology.volcano.sh",
    version="v1alpha1",
    access="hypernodes",
    field_selectors={"metadata.name": "name"},
    status_subresource=True,
    status_field_names=("node_count", "conditions"),
    example={
        "apiVersion": "topology.volcano.sh/v1alpha1",
        "kind": "HyperNode",
        "metadata": {"name": "s0"},
        "spec": {
            "tier": 1,
            "members": [{"type": "Node", "selector": {"regexMatch": {"pattern": "^node-[0-3]$"}}}],
        },
    },
)
