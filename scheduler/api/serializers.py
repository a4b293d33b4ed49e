"""Wire shape of SchedulerConfiguration for the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from kube.serializers import ObjectMetaSerializer, list_serializer

__all__ = [
    "SchedulerConfigurationListSerializer",
    "SchedulerConfigurationSerializer",
]


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


SchedulerConfigurationListSerializer = list_serializer(
    SchedulerConfigurationSerializer, "SchedulerConfigurationListSerializer"
)
