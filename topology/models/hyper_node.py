"""HyperNode (topology.volcano.sh/v1alpha1): a group of nodes sharing a network tier.

Cluster-scoped. ``spec.members`` is kept as written (each ``{type, selector}`` with one of
``exactMatch``, ``regexMatch`` or ``labelMatch``): the members are resolved against the nodes
that exist whenever they are needed (``topology.members``), never stored resolved. The status
is the HyperNode controller's: ``nodeCount`` (``topology.node_count``) and ``conditions``.
"""

from __future__ import annotations

from django.db import models

from kube.models import ObjectMeta
from kube.validators import validate_dns1123_subdomain

__all__ = ["HyperNode", "MemberType"]


class MemberType(models.TextChoices):
    """What a member selects: nodes, or one child HyperNode."""

    NODE = "Node"
    HYPER_NODE = "HyperNode"


class HyperNode(ObjectMeta):
    """A HyperNode: its tier, tier name and members, and how many nodes it covers."""

    name = models.CharField(max_length=253, unique=True, validators=[validate_dns1123_subdomain])
    # spec
    tier = models.IntegerField(default=0, help_text="spec.tier: lower is closer")
    tier_name = models.CharField(max_length=253, blank=True, help_text="spec.tierName")
    members = models.JSONField(default=list, blank=True, help_text="spec.members as written")
    # status (the HyperNode controller's)
    node_count = models.BigIntegerField(default=0, help_text="status.nodeCount")
    conditions = models.JSONField(default=list, blank=True, help_text="status.conditions")

    class Meta:
        ordering = ["tier", "name"]
        verbose_name = "HyperNode"

    def __str__(self) -> str:
        return self.name
