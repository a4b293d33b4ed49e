"""Wire shapes of the v1 kinds for the OpenAPI schema (Kubernetes' spelling)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from kube.serializers import (
    KubeObjectSerializer,
    ObjectMetaSerializer,
    list_serializer,
)

__all__ = [
    "EventListSerializer",
    "EventSerializer",
    "NodeListSerializer",
    "NodeSerializer",
    "PodListSerializer",
    "PodSerializer",
    "PriorityClassListSerializer",
    "PriorityClassSerializer",
]


class PodSerializer(KubeObjectSerializer):
    """``v1`` Pod: the spec from its task's template, the simulated run's status."""


class EventSerializer(serializers.Serializer[Any]):
    """``v1`` Event about an object."""

    apiVersion = serializers.CharField()
    kind = serializers.CharField()
    metadata = ObjectMetaSerializer()
    involvedObject = serializers.DictField()
    type = serializers.CharField()
    reason = serializers.CharField()
    message = serializers.CharField(required=False)
    count = serializers.IntegerField(required=False)


class PriorityClassSerializer(serializers.Serializer[Any]):
    """``scheduling.k8s.io/v1`` PriorityClass."""

    apiVersion = serializers.CharField()
    kind = serializers.CharField()
    metadata = ObjectMetaSerializer()
    value = serializers.IntegerField()
    globalDefault = serializers.BooleanField(required=False)
    preemptionPolicy = serializers.CharField(required=False)
    description = serializers.CharField(required=False)


class NodeSerializer(KubeObjectSerializer):
    """``v1`` Node: taints and unschedulable (cordon) in spec; capacity and Ready in status."""


PodListSerializer = list_serializer(PodSerializer, "PodListSerializer")
EventListSerializer = list_serializer(EventSerializer, "EventListSerializer")
PriorityClassListSerializer = list_serializer(
    PriorityClassSerializer, "PriorityClassListSerializer"
)
NodeListSerializer = list_serializer(NodeSerializer, "NodeListSerializer")
