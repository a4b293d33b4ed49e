"""Wire shapes of Queue and PodGroup for the OpenAPI schema."""

from __future__ import annotations

from kube.serializers import KubeObjectSerializer, list_serializer

__all__ = [
    "PodGroupListSerializer",
    "PodGroupSerializer",
    "QueueListSerializer",
    "QueueSerializer",
]


class QueueSerializer(KubeObjectSerializer):
    """``scheduling.volcano.sh/v1beta1`` Queue: weight, capability, ...; status.state."""


class PodGroupSerializer(KubeObjectSerializer):
    """``scheduling.volcano.sh/v1beta1`` PodGroup: minMember, queue, phase."""


QueueListSerializer = list_serializer(QueueSerializer, "QueueListSerializer")
PodGroupListSerializer = list_serializer(PodGroupSerializer, "PodGroupListSerializer")
