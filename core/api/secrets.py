"""Secrets (v1), read-only: ``/api/v1/namespaces/{namespace}/secrets[/{name}]``.

The job controller writes the only Secrets there are (the ssh plugin's
``<job>-ssh``); the API serves them to get and list, and to the roles that may
read key material only: operators, admins, and submitters in the namespaces
granted to them. Viewers are refused, as Kubernetes' ``view`` role leaves
Secrets out. ``data`` is on the wire as Kubernetes has it: base64 per key.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rest_framework import serializers

from apis.wire import Fields, Manifest
from core.models import Secret, SecretType
from core.owners import read_owner, resolve_job, with_job_owner
from kube.manifest_kinds import Kind, Loaded
from kube.resources import Resource
from kube.serializers import ObjectMetaSerializer, list_serializer

__all__ = ["SECRETS", "SecretKind", "SecretListSerializer", "SecretSerializer"]


class SecretKind(Kind):
    """``v1`` Secret: ``type`` and ``data`` (base64 per key) at the top level; owned by a Job."""

    api_version = "v1"
    kind = "Secret"
    resource = "secret"
    model = Secret
    spec_fields = ("job", "type", "data")
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name", "type": "type"}

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        secret: Secret = loaded.instance
        loaded.owner_name = read_owner(meta)
        secret.type = doc.string("type", SecretType.OPAQUE)
        secret.data = doc.string_map("data")

    def resolve(self, loaded: Loaded) -> None:
        resolve_job(loaded)

    def write_metadata(self, instance: Any) -> Manifest:
        return with_job_owner(super().write_metadata(instance), instance)

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        secret: Secret = instance
        return {"type": secret.type, "data": dict(sorted(secret.data.items()))}


SECRETS = Resource(
    manifest=SecretKind(),
    plural="secrets",
    group="",
    version="v1",
    access="secrets",
    field_selectors={"metadata.name": "name", "metadata.namespace": "namespace", "type": "type"},
    select_related=("job",),
    writable=False,
)


class SecretSerializer(serializers.Serializer[Any]):
    """``v1`` Secret: its type and its data (file name → base64 of the content)."""

    apiVersion = serializers.CharField()  # noqa: N815
    kind = serializers.CharField()
    metadata = ObjectMetaSerializer()
    type = serializers.CharField()


# `data` would shadow Serializer.data, hence the declared name (as ListMetaSerializer's continue).
SecretSerializer._declared_fields["data"] = serializers.DictField(
    child=serializers.CharField(), required=False
)
SecretListSerializer = list_serializer(SecretSerializer, "SecretListSerializer")
