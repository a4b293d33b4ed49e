"""Wire shape of HyperNode for the OpenAPI schema (Volcano's spelling)."""

from __future__ import annotations

from kube.serializers import KubeObjectSerializer, list_serializer

__all__ = ["HyperNodeListSerializer", "HyperNodeSerializer"]


class HyperNodeSerializer(KubeObjectSerializer):
    """``topology.volcano.sh/v1alpha1`` HyperNode: spec as written, the controller's status."""


HyperNodeListSerializer = list_serializer(HyperNodeSerializer, "HyperNodeListSerializer")
