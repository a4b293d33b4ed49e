"""Shapes of the API's objects for the OpenAPI schema (drf-spectacular); nothing is parsed here.

Bodies are decoded by ``bodies.py`` and read by the manifest kinds, which name
bad fields by path; these serializers only describe the wire for the docs and
for schemathesis. Field names are the wire's camelCase (hence the N815 waivers).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

__all__ = [
    "KubeObjectSerializer",
    "ListMetaSerializer",
    "ObjectMetaSerializer",
    "OwnerReferenceSerializer",
    "StatusSerializer",
    "list_serializer",
]


class OwnerReferenceSerializer(serializers.Serializer[Any]):
    """One ``metadata.ownerReferences`` entry: the owner, named fully."""

    apiVersion = serializers.CharField()  # noqa: N815
    kind = serializers.CharField()
    name = serializers.CharField()
    uid = serializers.CharField()
    controller = serializers.BooleanField(required=False)
    blockOwnerDeletion = serializers.BooleanField(required=False)  # noqa: N815


class ObjectMetaSerializer(serializers.Serializer[Any]):
    """``metadata`` of every object."""

    name = serializers.CharField(required=False)
    generateName = serializers.CharField(required=False)  # noqa: N815
    namespace = serializers.CharField(required=False)
    uid = serializers.CharField(required=False)
    resourceVersion = serializers.CharField(required=False)  # noqa: N815
    generation = serializers.IntegerField(required=False)
    creationTimestamp = serializers.CharField(required=False)  # noqa: N815
    labels = serializers.DictField(child=serializers.CharField(), required=False)
    annotations = serializers.DictField(child=serializers.CharField(), required=False)
    ownerReferences = OwnerReferenceSerializer(many=True, required=False)  # noqa: N815
    finalizers = serializers.ListField(child=serializers.CharField(), required=False)
    deletionTimestamp = serializers.CharField(required=False)  # noqa: N815
    deletionGracePeriodSeconds = serializers.IntegerField(required=False)  # noqa: N815


class ListMetaSerializer(serializers.Serializer[Any]):
    """``metadata`` of a list."""

    resourceVersion = serializers.CharField()  # noqa: N815
    # The token of the next page (limit/continue), absent on the last one.
    # `continue` is a Python keyword, hence the declared source name below.
    remainingItemCount = serializers.IntegerField(required=False)  # noqa: N815


ListMetaSerializer._declared_fields["continue"] = serializers.CharField(required=False)


class StatusCauseSerializer(serializers.Serializer[Any]):
    """One ``details.causes[]`` entry: the field path and what is wrong with it."""

    reason = serializers.CharField(required=False)
    message = serializers.CharField(required=False)
    field = serializers.CharField(required=False)


class StatusDetailsSerializer(serializers.Serializer[Any]):
    """``details`` of a Status."""

    name = serializers.CharField(required=False)
    group = serializers.CharField(required=False)
    kind = serializers.CharField(required=False)
    uid = serializers.CharField(required=False)
    causes = StatusCauseSerializer(many=True, required=False)


class StatusSerializer(serializers.Serializer[Any]):
    """Kubernetes' ``Status``: every error, and the answer of some deletes."""

    kind = serializers.CharField()
    apiVersion = serializers.CharField()  # noqa: N815
    status = serializers.CharField()
    message = serializers.CharField(required=False)
    reason = serializers.CharField(required=False)
    code = serializers.IntegerField(required=False)
    details = StatusDetailsSerializer(required=False)


class KubeObjectSerializer(serializers.Serializer[Any]):
    """An object: kind, apiVersion, metadata, and a free-form spec and status."""

    apiVersion = serializers.CharField()  # noqa: N815
    kind = serializers.CharField()
    metadata = ObjectMetaSerializer()
    spec = serializers.DictField(required=False)
    status = serializers.DictField(required=False)


def list_serializer(item: type[serializers.Serializer[Any]], name: str) -> type[Any]:
    """Return a ``<Kind>List`` serializer class whose items are ``item``."""
    return type(
        name,
        (serializers.Serializer,),
        {
            "__doc__": f"A list of {item.__name__.removesuffix('Serializer')} objects.",
            "apiVersion": serializers.CharField(),
            "kind": serializers.CharField(),
            "metadata": ListMetaSerializer(),
            "items": item(many=True),
        },
    )
