"""OpenAPI v2 (``/openapi/v2``) and v3 (``/openapi/v3``) documents in Kubernetes' shape.

kubectl reads these, not ``/api/schema/`` (drf-spectacular's, for people):
``kubectl explain`` walks the kinds' schemas found by their
``x-kubernetes-group-version-kind``; ``kubectl apply`` looks up each kind's
PATCH operation for the ``fieldValidation`` parameter and, finding it, leaves
validation to the server (which names the wrong field in a 422). v3 is served
as an index of group versions, each a document of its own, as kube-apiserver
does. Only JSON is offered: a protobuf-only ``Accept`` is 406 Not Acceptable.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.http import HttpResponseBase, JsonResponse
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request

from kube import registry
from kube.catalogue import Entry, group_versions
from kube.schemas import OBJECT_META, kind_schema
from kube.status import KubeError
from kube.views import KubeAPIView

__all__ = ["OpenAPIV2View", "OpenAPIV3DocumentView", "OpenAPIV3IndexView", "v3_document"]

_META_NAME = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_QUERY = {
    "dryRun": "When present (All), validate and answer without storing.",
    "fieldManager": "Name of the actor making the change (required for apply patches).",
    "fieldValidation": "Ignore, Warn or Strict; this server always refuses unknown fields.",
}


def _schema_name(entry: Entry) -> str:
    resource = entry.resource
    group = ".".join(reversed(resource.group.split("."))) if resource.group else "io.k8s.api.core"
    return f"{group}.{resource.version}.{resource.kind}"


def _parameters(names: tuple[str, ...], *, v3: bool) -> list[dict[str, Any]]:
    found = []
    for name in names:
        parameter: dict[str, Any] = {
            "name": name,
            "in": "query",
            "description": _QUERY[name],
            "uniqueItems": True,
        }
        if v3:
            parameter["schema"] = {"type": "string"}
        else:
            parameter["type"] = "string"
        found.append(parameter)
    return found


def _operation(entry: Entry, action: str, ref: str, *, v3: bool) -> dict[str, Any]:
    resource = entry.resource
    gvk = {"group": resource.group, "version": resource.version, "kind": resource.kind}
    writes = action in ("post", "put", "patch")
    operation: dict[str, Any] = {
        "description": f"{action} {resource.kind}",
        "operationId": f"{action}{resource.kind}{resource.group.split('.')[0].title()}",
        "tags": [entry.group_version],
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": gvk,
        "parameters": _parameters(("dryRun", "fieldManager", "fieldValidation"), v3=v3)
        if writes
        else [],
    }
    if v3:
        content = {"application/json": {"schema": {"$ref": ref}}}
        operation["responses"] = {"200": {"description": "OK", "content": content}}
        if writes:
            types = (
                ["application/merge-patch+json", "application/apply-patch+yaml"]
                if action == "patch"
                else ["application/json", "application/yaml"]
            )
            schema = {"type": "object"} if action == "patch" else {"$ref": ref}
            operation["requestBody"] = {"content": {t: {"schema": schema} for t in types}}
    else:
        operation["responses"] = {"200": {"description": "OK", "schema": {"$ref": ref}}}
    return operation


def _paths(entries: list[Entry], prefix: str, *, v3: bool) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for entry in entries:
        resource = entry.resource
        ref = f"{prefix}{_schema_name(entry)}"
        root = f"/apis/{resource.group}/{resource.version}" if resource.group else "/api/v1"
        scope = f"{root}/namespaces/{{namespace}}" if resource.namespaced else root
        collection, item = f"{scope}/{resource.plural}", f"{scope}/{resource.plural}/{{name}}"
        writable = resource.writable
        paths[collection] = {
            a: _operation(entry, a, ref, v3=v3) for a in ("get", "post") if writable or a == "get"
        }
        paths[item] = {
            a: _operation(entry, a, ref, v3=v3)
            for a in ("get", "put", "patch", "delete")
            if writable or a == "get"
        }
    return paths


def _schemas(entries: list[Entry], prefix: str) -> dict[str, Any]:
    schemas: dict[str, Any] = {_META_NAME: OBJECT_META}
    for entry in entries:
        resource = entry.resource
        schemas[_schema_name(entry)] = kind_schema(
            resource.kind, resource.group, resource.version, f"{prefix}{_META_NAME}", entry.schema
        )
    return schemas


_INFO = {"title": "Volcano console (Kubernetes-shaped API)", "version": "v1.32.0"}


def v3_document(group_version: str) -> dict[str, Any] | None:
    """Return the OpenAPI v3 document of one group version (``None`` when not served)."""
    return _v3_document(registry.revision(), group_version)


# Keyed by the registry's revision: a kind served or withdrawn makes new documents.
@lru_cache(maxsize=64)
def _v3_document(revision: int, group_version: str) -> dict[str, Any] | None:
    entries = group_versions().get(group_version)
    if entries is None:
        return None
    prefix = "#/components/schemas/"
    return {
        "openapi": "3.0.0",
        "info": _INFO,
        "paths": _paths(entries, prefix, v3=True),
        "components": {"schemas": _schemas(entries, prefix)},
    }


def v2_document() -> dict[str, Any]:
    """Return the OpenAPI v2 (Swagger) document of every served resource."""
    return _v2_document(registry.revision())


@lru_cache(maxsize=4)
def _v2_document(revision: int) -> dict[str, Any]:
    prefix = "#/definitions/"
    paths: dict[str, Any] = {}
    definitions: dict[str, Any] = {}
    for entries in group_versions().values():
        paths.update(_paths(entries, prefix, v3=False))
        definitions.update(_schemas(entries, prefix))
    return {"swagger": "2.0", "info": _INFO, "paths": paths, "definitions": definitions}


def _v3_path(group_version: str) -> str:
    return f"apis/{group_version}" if "/" in group_version else f"api/{group_version}"


def _accepts_json(accept: str) -> bool:
    """Return whether JSON is acceptable (no header, ``*/*`` or any JSON type)."""
    if not accept.strip():
        return True
    media = [offer.split(";", 1)[0].strip().lower() for offer in accept.split(",")]
    return any(m in ("*/*", "application/*") or m.endswith("json") for m in media)


class OpenAPIView(KubeAPIView):
    """Readable by any signed-in client; JSON only."""

    permission_classes = [IsAuthenticated]  # noqa: RUF012
    schema = None  # the documents themselves, not in drf-spectacular's schema
    http_method_names = ["get", "head", "options"]  # noqa: RUF012

    def answer(self, request: Request, document: dict[str, Any]) -> HttpResponseBase:
        """Return ``document`` as JSON, or 406 when the client takes only protobuf."""
        if not _accepts_json(request.headers.get("Accept", "")):
            raise KubeError(406, "only application/json is served; protobuf is not")
        return JsonResponse(document, json_dumps_params={"separators": (",", ":")})


class OpenAPIV2View(OpenAPIView):
    """``GET /openapi/v2``."""

    def get(self, request: Request) -> HttpResponseBase:
        return self.answer(request, v2_document())


class OpenAPIV3IndexView(OpenAPIView):
    """``GET /openapi/v3``: where each group version's document is."""

    def get(self, request: Request) -> HttpResponseBase:
        paths = {}
        for group_version in group_versions():
            document = v3_document(group_version)
            digest = hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()
            path = _v3_path(group_version)
            paths[path] = {"serverRelativeURL": f"/openapi/v3/{path}?hash={digest[:32].upper()}"}
        return self.answer(request, {"paths": paths})


class OpenAPIV3DocumentView(OpenAPIView):
    """``GET /openapi/v3/apis/<group>/<version>`` (or ``/openapi/v3/api/v1``)."""

    def get(self, request: Request, path: str) -> HttpResponseBase:
        parts = path.strip("/").split("/")
        group_version = ""
        if len(parts) == 3 and parts[0] == "apis":
            group_version = f"{parts[1]}/{parts[2]}"
        elif len(parts) == 2 and parts[0] == "api":
            group_version = parts[1]
        document = v3_document(group_version) if group_version else None
        if document is None:
            raise KubeError(404, f"no OpenAPI document for {path!r}")
        return self.answer(request, document)


class DocsAccess(BasePermission):
    """The schema and Swagger UI (``/api/schema/``, ``/api/docs/``): signed-in users only.

    kube-apiserver serves ``/openapi/v2`` to authenticated clients: the schema describes
    what this cluster serves. ``VOLCANO_PUBLIC_API_DOCS=1`` opens them (read at each request).
    """

    def has_permission(self, request: Any, view: Any) -> bool:
        if getattr(settings, "VOLCANO_PUBLIC_API_DOCS", False):
            return True
        return bool(request.user and request.user.is_authenticated)
