"""Wire shape of Queue for the OpenAPI schema."""

from __future__ import annotations

from volcano_site.kube.serializers import KubeObjectSerializer, list_serializer

__all__ = ["QueueListSerializer", "QueueSerializer"]


class QueueSerializer(KubeObjectSerializer):
    """``scheduling.volcano.sh/v1beta1`` Queue: weight, capability, ...; status.state."""


QueueListSerializer = list_serializer(QueueSerializer, "QueueListSerializer")
