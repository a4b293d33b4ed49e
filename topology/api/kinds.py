"""HyperNode as the API server serves it, registered with the kernel, and its controller.

Names and printer columns are Volcano's CRD's (``hypernodes.topology.volcano.sh``: short
name ``hn``; ``kubectl get hn`` prints TIER, TIERNAME, NODECOUNT, AGE). Everyone signed in
reads HyperNodes (the scheduler's topology is no secret); operators write them, as they
write nodes. They are applied after the nodes they name and before the jobs placed by them.
"""

from __future__ import annotations

from typing import Any

from accounts.roles import EVERYONE, OPERATORS
from kube import registry
from kube.registry import KUBE_AGE, AccessRule, Column, Controller, Entry, Invalid
from kube.schemas import array_of, free_object, integer, object_of, string
from topology.admission import NAME_PATTERN
from topology.api.resources import HYPER_NODES
from topology.controller import reconcile_hyper_nodes

__all__ = ["HYPER_NODE_ENTRY", "register"]

_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
_SELECTOR = object_of(
    "Selector defines the selection rules for this member: exactly one of exactMatch, "
    "regexMatch or labelMatch.",
    {
        "exactMatch": object_of(
            "ExactMatch defines the exact match criteria.",
            {
                "name": string(
                    "Name specifies the exact name of the node (or HyperNode) to match.",
                    minLength=1,
                    maxLength=253,
                    pattern=NAME_PATTERN,
                )
            },
            required=["name"],
        ),
        "regexMatch": object_of(
            "RegexMatch defines the regex match criteria (Node members only).",
            {
                "pattern": string(
                    "Pattern defines the regex pattern (Go syntax) to match node names.",
                    minLength=1,
                )
            },
            required=["pattern"],
        ),
        "labelMatch": object_of(
            "LabelMatch defines the labels match criteria (Node members only).",
            {
                "matchLabels": {
                    **_STRINGS,
                    "description": "matchLabels is a map of {key,value} pairs; ANDed.",
                },
                "matchExpressions": array_of(
                    "matchExpressions is a list of label selector requirements; ANDed.",
                    object_of(
                        "A label selector requirement: key, operator (In, NotIn, Exists, "
                        "DoesNotExist) and values.",
                        {
                            "key": string("key is the label key that the selector applies to."),
                            "operator": string(
                                "operator represents a key's relationship to a set of values."
                            ),
                            "values": array_of(
                                "values is an array of string values.", {"type": "string"}
                            ),
                        },
                        required=["key", "operator"],
                    ),
                ),
            },
        ),
    },
)
HYPER_NODE_SCHEMA: tuple[str, dict[str, Any]] = (
    "HyperNode represents a collection of nodes sharing similar network topology or "
    "performance characteristics.",
    {
        "spec": object_of(
            "Spec defines the desired configuration of the HyperNode.",
            {
                "tier": integer(
                    "Tier categorizes the performance level of the HyperNode.", minimum=0
                ),
                "tierName": string(
                    "TierName represents the level name of the HyperNode.", maxLength=253
                ),
                "members": array_of(
                    "Members defines a list of node groups or individual nodes included in "
                    "the HyperNode.",
                    object_of(
                        "MemberSpec represents a specific node or a hyperNodes in the hyperNode.",
                        {
                            "type": string(
                                "Type specifies the member type.", enum=["Node", "HyperNode"]
                            ),
                            "selector": _SELECTOR,
                        },
                        required=["type"],
                    ),
                ),
            },
            required=["tier"],
        ),
        "status": object_of(
            "Status provides the current state of the HyperNode.",
            {
                "conditions": array_of(
                    "Conditions provide details about the current state of the HyperNode.",
                    free_object("One condition (type, status, reason, message, times)."),
                ),
                "nodeCount": {
                    "type": "integer",
                    "format": "int64",
                    "minimum": 0,
                    "description": "NodeCount is the total number of nodes currently in the "
                    "HyperNode.",
                },
            },
        ),
    },
)

HYPER_NODE_ENTRY = Entry(
    HYPER_NODES,
    "hypernode",
    ("hn",),
    columns=(
        Column("Tier", "string", ".spec.tier", description="Tier of the HyperNode"),
        Column("TierName", "string", ".spec.tierName", description="Tier name of the HyperNode"),
        Column(
            "NodeCount",
            "integer",
            ".status.nodeCount",
            description="Nodes the HyperNode covers",
        ),
        KUBE_AGE,
    ),
    subresources=("status",),
    # After the nodes it names (Node 30), before the scheduler's ConfigMap and the jobs.
    apply_order=35,
    schema=HYPER_NODE_SCHEMA,
    example=HYPER_NODES.example,
    invalid=Invalid("spec.tier", -1),
)


def register() -> None:
    """Serve HyperNode and run its controller (``TopologyConfig.ready``)."""
    cluster = AccessRule(EVERYONE, OPERATORS, namespaced=False)
    registry.register_kind(HYPER_NODE_ENTRY, access=cluster)
    registry.register_access("hypernodes/status", cluster)
    # After node IPAM (5), before the job controllers (10): a session sees fresh HyperNodes.
    registry.add_controller(Controller("topology.hypernode", reconcile_hyper_nodes, order=8))
