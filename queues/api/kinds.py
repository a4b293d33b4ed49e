"""The queues app's kinds as the API server serves them, registered with the kernel.

Names and printer columns are Volcano's CRDs' (``kubectl get pg`` prints STATUS, minMember,
RUNNINGS, AGE; ``kubectl get q`` PARENT). Queues and PodGroups are read by everyone and written
by operators; a queue that still holds jobs may not be deleted (Volcano's webhook), and a
person's changes to a queue's share, limits and node-group affinity are audited.
"""

from __future__ import annotations

from accounts.roles import EVERYONE, OPERATORS
from kube import registry
from kube.registry import AGE, AccessRule, Column, Entry, Invalid
from queues.admission import admit_queue_delete
from queues.api.resources import PODGROUPS, QUEUES

__all__ = ["register"]

PODGROUP_ENTRY = Entry(
    PODGROUPS,
    "podgroup",
    ("pg", "podgroup-v1beta1"),
    columns=(
        Column("STATUS", "string", ".status.phase"),
        Column("minMember", "integer", ".spec.minMember"),
        Column("RUNNINGS", "integer", ".status.running"),
        AGE,
        Column("QUEUE", "string", ".spec.queue", priority=1),
    ),
    apply_order=70,
    example=PODGROUPS.example,
    invalid=Invalid("spec.minMember", -1),
)
QUEUE_ENTRY = Entry(
    QUEUES,
    "queue",
    ("q", "queue-v1beta1"),
    columns=(Column("PARENT", "string", ".spec.parent", description="The parent queue"),),
    subresources=("status",),
    apply_order=20,
    console_page="queues:queue_detail",
    admit_delete=admit_queue_delete,
    audited_fields=(
        "weight",
        "capability",
        "deserved",
        "guarantee",
        "state",
        "reclaimable",
        "parent",
        "priority",
        "affinity",
    ),
    audited_quantities=("capability", "deserved", "guarantee"),
    example=QUEUES.example,
    invalid=Invalid("spec.weight", 0),
)


def register() -> None:
    """Serve PodGroup and Queue (``QueuesConfig.ready``)."""
    # The order discovery lists them in (scheduling.volcano.sh: podgroups, queues).
    registry.register_kind(PODGROUP_ENTRY, access=AccessRule(EVERYONE, OPERATORS, namespaced=True))
    cluster = AccessRule(EVERYONE, OPERATORS, namespaced=False)
    registry.register_kind(QUEUE_ENTRY, access=cluster)
    registry.register_access("queues/status", cluster)
