"""Wire shapes of Node and SchedulerConfiguration for the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from volcano_site.kube.serializers import (
    KubeObjectSerializer,
    ObjectMetaSerializer,
    list_serializer,
)

__all__ = [
    "NodeListSerializer",
    "NodeSerializer",
    "SchedulerConfigurationListSerializer",
    "SchedulerConfigurationSerializer",
]


class NodeSerializer(KubeObjectSerializer):
    """``v1`` Node: taints and unschedulable (cordon) in spec; capacity and Ready in status."""


class SchedulerConfigurationSpecSerializer(serializers.Serializer[Any]):
    """The configuration's text (volcano-scheduler.conf: actions and tiers) and a note."""

    conf = serializers.CharField()
    comment = serializers.CharField(required=False)


class SchedulerConfigurationStatusSerializer(serializers.Serializer[Any]):
    """Whether this version is the one the scheduler uses."""

    version = serializers.IntegerField(required=False)
    active = serializers.BooleanField(required=False)
    author = serializers.CharField(required=False)


class SchedulerConfigurationSerializer(serializers.Serializer[Any]):
    """``scheduler.volcano.sh/v1alpha1`` SchedulerConfiguration: one stored version."""

    apiVersion = serializers.CharField()
    kind = serializers.CharField()
    metadata = ObjectMetaSerializer(required=False)
    spec = SchedulerConfigurationSpecSerializer()
    status = SchedulerConfigurationStatusSerializer(required=False)


NodeListSerializer = list_serializer(NodeSerializer, "NodeListSerializer")
SchedulerConfigurationListSerializer = list_serializer(
    SchedulerConfigurationSerializer, "SchedulerConfigurationListSerializer"
)
