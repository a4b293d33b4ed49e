"""Numatopology served as Volcano's CRD serves it: ``nodeinfo.volcano.sh/v1alpha1``, cluster-scoped,
resource ``numatopologies``, short name ``numatopo``, no printer columns but the age.

Volcano's resource exporter is its only writer (one per node, named after it); here the
simulated exporter (``kubelet.exporter``) is, writing rows directly. Everyone may read them.
Through the API, operators may write them as they write Nodes: to describe by hand the layout of
a node without ``volcano.sh/sim-numa``, or import one dumped from a real cluster (the exporter
leaves those alone and rewrites only the ones of knobbed nodes, each cycle).
"""

from __future__ import annotations

from accounts.roles import EVERYONE, OPERATORS
from kube import registry
from kube.registry import KUBE_AGE, AccessRule, Entry, Invalid
from kube.resources import Resource
from kubelet.manifests import NumatopologyKind

__all__ = ["NUMATOPOLOGIES", "NUMATOPOLOGY_ENTRY", "register"]

EXAMPLE = {
    "apiVersion": "nodeinfo.volcano.sh/v1alpha1",
    "kind": "Numatopology",
    "metadata": {"name": "node-1"},
    "spec": {
        "policies": {"CPUManagerPolicy": "static", "TopologyManagerPolicy": "single-numa-node"},
        "numares": {"cpu": {"allocatable": "0-3", "capacity": 4}},
        "cpuDetail": {"0": {}, "1": {"core": 1}, "2": {"numa": 1, "core": 2},
                      "3": {"numa": 1, "core": 3}},
    },
}  # fmt: skip

NUMATOPOLOGIES = Resource(
    manifest=NumatopologyKind(),
    plural="numatopologies",
    group="nodeinfo.volcano.sh",
    version="v1alpha1",
    access="numatopologies",
    field_selectors={"metadata.name": "name"},
    example=EXAMPLE,
)
NUMATOPOLOGY_ENTRY = Entry(
    NUMATOPOLOGIES,
    "numatopology",
    ("numatopo",),
    columns=(KUBE_AGE,),
    apply_order=32,  # after the nodes they describe
    example=EXAMPLE,
    invalid=Invalid("spec.numares.cpu.allocatable", "zero-three"),
)


def register() -> None:
    """Serve Numatopology (``KubeletConfig.ready``)."""
    registry.register_kind(
        NUMATOPOLOGY_ENTRY, access=AccessRule(EVERYONE, OPERATORS, namespaced=False)
    )
