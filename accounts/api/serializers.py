"""Wire shape of the audit log for the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

__all__ = ["AuditEntryListSerializer", "AuditEntrySerializer"]


class AuditEntrySerializer(serializers.Serializer[Any]):
    """One entry: who changed which object, when, and the changed fields before and after."""

    id = serializers.IntegerField()
    time = serializers.CharField()
    user = serializers.CharField()
    action = serializers.CharField()
    kind = serializers.CharField()
    name = serializers.CharField()
    before = serializers.DictField(allow_null=True)
    after = serializers.DictField(allow_null=True)


class AuditEntryListSerializer(serializers.Serializer[Any]):
    """The newest entries first; ``metadata.continue`` pages back in time."""

    apiVersion = serializers.CharField()
    kind = serializers.CharField()
    metadata = serializers.DictField()
    items = AuditEntrySerializer(many=True)
