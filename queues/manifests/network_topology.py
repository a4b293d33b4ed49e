"""The ``networkTopology`` block Volcano puts on Jobs, PodGroups and subGroupPolicies.

Read for shape only (a string mode, an integer tier, a string tier name; nothing else), with
the CRD's one default: a block without ``mode`` is ``hard``, as kube-apiserver fills it from
Volcano's CRD. The ranges and the webhook's "not both" rule are admission's
(``queues.admission.network_topology``), so one refusal can name every bad field. Kept in its
wire shape (``{"mode", "highestTierAllowed", "highestTierName"}``, keys in Volcano's order) in
a JSON column; the job controller copies it from a Job to the Job's PodGroup.
"""

from __future__ import annotations

from typing import Any

from apis.wire import Fields

__all__ = ["DEFAULT_MODE", "MODES", "read_network_topology"]

MODES = ("hard", "soft")
DEFAULT_MODE = "hard"  # the CRD's default for mode


def read_network_topology(fields: Fields, key: str = "networkTopology") -> dict[str, Any] | None:
    """Return the ``networkTopology`` object at ``key`` of ``fields`` (None when absent)."""
    if not fields.has(key):
        fields.raw(key)  # null counts as absent, as it does for Kubernetes
        return None
    block = fields.obj(key)
    topology: dict[str, Any] = {"mode": block.string("mode", DEFAULT_MODE)}
    tier = block.optional_integer("highestTierAllowed")
    if tier is not None:
        topology["highestTierAllowed"] = tier
    if name := block.string("highestTierName"):
        topology["highestTierName"] = name
    block.done()
    return topology
