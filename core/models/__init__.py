"""The v1 kinds every app builds on, one module per kind: import them from here."""

from __future__ import annotations

from core.models.config_map import ConfigMap
from core.models.disruption_budget import PodDisruptionBudget
from core.models.event import Event, EventType
from core.models.namespace import Namespace, NamespacePhase
from core.models.network_policy import NetworkPolicy
from core.models.node import Node, NodeLoadStamp
from core.models.pod import Pod, PodPhase, TaskStatus
from core.models.priority_class import (
    ClassTable,
    PreemptionPolicy,
    PriorityClass,
    priority_class_table,
    priority_class_values,
    stamp_class,
)
from core.models.resource_quota import ResourceQuota
from core.models.secret import Secret, SecretType
from core.models.service import (
    CLUSTER_IP_NONE,
    Endpoints,
    EndpointSlice,
    Service,
    ServiceType,
)

__all__ = [
    "CLUSTER_IP_NONE",
    "ClassTable",
    "ConfigMap",
    "EndpointSlice",
    "Endpoints",
    "Event",
    "EventType",
    "Namespace",
    "NamespacePhase",
    "NetworkPolicy",
    "Node",
    "NodeLoadStamp",
    "Pod",
    "PodDisruptionBudget",
    "PodPhase",
    "PreemptionPolicy",
    "PriorityClass",
    "ResourceQuota",
    "Secret",
    "SecretType",
    "Service",
    "ServiceType",
    "TaskStatus",
    "priority_class_table",
    "priority_class_values",
    "stamp_class",
]
