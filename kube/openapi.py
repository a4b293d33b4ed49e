"""OpenAPI v2 (``/openapi/v2``) and v3 (``/openapi/v3``) documents in Kubernetes' shape.

kubectl reads these, not ``/api/schema/`` (drf-spectacular's, for people):
``kubectl explain`` walks the kinds' schemas found by their
``x-kubernetes-group-version-kind``; ``kubectl apply``, ``create`` and ``replace`` look up
each kind's PATCH operation for the ``fieldValidation`` parameter and, finding it, leave
validation to the server (which names the wrong field in a 422). Both documents describe
every resource discovery lists: the registered kinds and the resources apps serve with their
own views (the scheduler configuration, metrics.k8s.io, the audit log), each with the
operations its verbs name.

v3 is served as an index of group versions, each a document of its own, as kube-apiserver
does (JSON only). v2 is negotiated as kube-openapi's handler does it: JSON, or gnostic's
protobuf (``kube.openapi_protobuf``), which is all kubectl asks for; any other ``Accept`` is
406 Not Acceptable.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.http import HttpResponse, HttpResponseBase, JsonResponse
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request

from kube import registry
from kube.catalogue import Entry, group_versions
from kube.openapi_protobuf import encode_document
from kube.schemas import OBJECT_META, kind_schema
from kube.status import KubeError
from kube.views import KubeAPIView

__all__ = [
    "OpenAPIV2View",
    "OpenAPIV3DocumentView",
    "OpenAPIV3IndexView",
    "group_version_names",
    "negotiate",
    "v2_document",
    "v3_document",
]

_META_NAME = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_QUERY = {
    "dryRun": "When present (All), validate and answer without storing.",
    "fieldManager": "Name of the actor making the change (required for apply patches).",
    "fieldValidation": "Ignore, Warn or Strict; this server always refuses unknown fields.",
}


@dataclass(frozen=True)
class _Served:
    """One served resource as the documents describe it: a registered kind, or a resource an
    app serves with its own views (``registry.register_api_resource``)."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: tuple[str, ...]
    schema: tuple[str, dict[str, Any]] | None

    @property
    def group_version(self) -> str:
        """Return ``group/version`` (``v1`` for the core group)."""
        return f"{self.group}/{self.version}" if self.group else self.version


def _from_entry(entry: Entry) -> _Served:
    resource = entry.resource
    return _Served(
        resource.group,
        resource.version,
        resource.kind,
        resource.plural,
        resource.namespaced,
        entry.verbs,
        entry.schema,
    )


def _served() -> dict[str, list[_Served]]:
    """Return every served resource by group version: the kinds', then the apps' own views'."""
    found = {gv: [_from_entry(e) for e in entries] for gv, entries in group_versions().items()}
    for group_version, resources in registry.api_resources().items():
        group, _, version = group_version.rpartition("/")
        for item in resources:
            name = str(item["name"])
            if "/" in name:  # a subresource: its kind is described with its resource
                continue
            found.setdefault(group_version, []).append(
                _Served(
                    group,
                    version,
                    str(item["kind"]),
                    name,
                    bool(item["namespaced"]),
                    tuple(item["verbs"]),
                    registry.api_resource_schema(group_version, name),
                )
            )
    return found


def _schema_name(served: _Served) -> str:
    group = ".".join(reversed(served.group.split("."))) if served.group else "io.k8s.api.core"
    return f"{group}.{served.version}.{served.kind}"


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


def _operation(served: _Served, action: str, ref: str, *, v3: bool) -> dict[str, Any]:
    gvk = {"group": served.group, "version": served.version, "kind": served.kind}
    writes = action in ("post", "put", "patch")
    operation: dict[str, Any] = {
        "description": f"{action} {served.kind}",
        "operationId": f"{action}{served.kind}{served.group.split('.')[0].title()}",
        "tags": [served.group_version],
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


# The operations each verb is served by, on the collection and on one object.
_COLLECTION_VERBS = {"get": "list", "post": "create"}
_ITEM_VERBS = {"get": "get", "put": "update", "patch": "patch", "delete": "delete"}


def _paths(resources: list[_Served], prefix: str, *, v3: bool) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for served in resources:
        ref = f"{prefix}{_schema_name(served)}"
        root = f"/apis/{served.group_version}" if served.group else "/api/v1"
        scope = f"{root}/namespaces/{{namespace}}" if served.namespaced else root
        collection, item = f"{scope}/{served.plural}", f"{scope}/{served.plural}/{{name}}"
        for path, verbs in ((collection, _COLLECTION_VERBS), (item, _ITEM_VERBS)):
            operations = {
                action: _operation(served, action, ref, v3=v3)
                for action, verb in verbs.items()
                if verb in served.verbs
            }
            if operations:
                paths[path] = operations
    return paths


def _schemas(resources: list[_Served], prefix: str) -> dict[str, Any]:
    schemas: dict[str, Any] = {_META_NAME: OBJECT_META}
    for served in resources:
        schemas[_schema_name(served)] = kind_schema(
            served.kind, served.group, served.version, f"{prefix}{_META_NAME}", served.schema
        )
    return schemas


_INFO = {"title": "Volcano console (Kubernetes-shaped API)", "version": "v1.32.0"}


def group_version_names() -> list[str]:
    """Return every served group version (``v1``, ``batch.volcano.sh/v1alpha1``, ...)."""
    return list(_v3_documents(registry.revision()))


def v3_document(group_version: str) -> dict[str, Any] | None:
    """Return the OpenAPI v3 document of one group version (``None`` when not served)."""
    return _v3_documents(registry.revision()).get(group_version)


# Keyed by the registry's revision: a kind served or withdrawn makes new documents.
@lru_cache(maxsize=4)
def _v3_documents(revision: int) -> dict[str, dict[str, Any]]:
    prefix = "#/components/schemas/"
    return {
        group_version: {
            "openapi": "3.0.0",
            "info": _INFO,
            "paths": _paths(resources, prefix, v3=True),
            "components": {"schemas": _schemas(resources, prefix)},
        }
        for group_version, resources in _served().items()
    }


def v2_document() -> dict[str, Any]:
    """Return the OpenAPI v2 (Swagger) document of every served resource."""
    return _v2_document(registry.revision())


@lru_cache(maxsize=4)
def _v2_document(revision: int) -> dict[str, Any]:
    prefix = "#/definitions/"
    paths: dict[str, Any] = {}
    definitions: dict[str, Any] = {}
    for resources in _served().values():
        paths.update(_paths(resources, prefix, v3=False))
        definitions.update(_schemas(resources, prefix))
    return {"swagger": "2.0", "info": _INFO, "paths": paths, "definitions": definitions}


@lru_cache(maxsize=4)
def _v2_encoded(revision: int) -> dict[str, tuple[bytes, str]]:
    """Return the v2 document's JSON and protobuf bodies, each with its ETag.

    As kube-openapi does, both share the JSON's ETag (the answer varies by ``Accept``).
    """
    encoded = json.dumps(_v2_document(revision), separators=(",", ":")).encode()
    etag = hashlib.sha512(encoded).hexdigest().upper()
    return {
        _JSON: (encoded, etag),
        _PROTOBUF: (encode_document(_v2_document(revision)), etag),
    }


def _v3_path(group_version: str) -> str:
    return f"apis/{group_version}" if "/" in group_version else f"api/{group_version}"


_JSON = "application/json"
_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
# What kube-openapi's handler offers for /openapi/v2, in its order: (type, subtype, answered).
_V2_OFFERS = (
    ("application", "json", _JSON),
    ("application", "com.github.proto-openapi.spec.v2@v1.0+protobuf", _PROTOBUF),
    ("application", "com.github.proto-openapi.spec.v2.v1.0+protobuf", _PROTOBUF),
)
_V3_OFFERS = (("application", "json", _JSON),)


def negotiate(accept: str, offers: tuple[tuple[str, str, str], ...]) -> str | None:
    """Return the media type answered for ``accept`` (``None``: nothing acceptable: 406).

    As kube-openapi negotiates (goautoneg): the clauses by quality, the more specific first
    among equals; the first clause that matches an offer (``*`` matching anything) picks it.
    An empty header is ``*/*``.
    """
    clauses: list[tuple[float, int, str, str]] = []
    for index, clause in enumerate((accept.strip() or "*/*").split(",")):
        media, *parameters = (part.strip() for part in clause.split(";"))
        kind, _, subtype = media.lower().partition("/")
        quality = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if kind and subtype and quality > 0:
            clauses.append((quality, index, kind, subtype))
    clauses.sort(key=lambda c: (-c[0], c[2] == "*", c[3] == "*", c[1]))
    for _, _, kind, subtype in clauses:
        for offer_kind, offer_subtype, answered in offers:
            if kind in (offer_kind, "*") and subtype in (offer_subtype, "*"):
                return answered
    return None


class OpenAPIView(KubeAPIView):
    """Readable by any signed-in client."""

    permission_classes = [IsAuthenticated]  # noqa: RUF012
    schema = None  # the documents themselves, not in drf-spectacular's schema
    http_method_names = ["get", "head", "options"]  # noqa: RUF012

    def answer(self, request: Request, document: dict[str, Any]) -> HttpResponseBase:
        """Return ``document`` as JSON, or 406 when the client takes only protobuf."""
        if negotiate(request.headers.get("Accept", ""), _V3_OFFERS) is None:
            raise KubeError(406, "only application/json is served for OpenAPI v3")
        response = JsonResponse(document, json_dumps_params={"separators": (",", ":")})
        response["Vary"] = "Accept"
        return response


class OpenAPIV2View(OpenAPIView):
    """``GET /openapi/v2``: JSON or gnostic's protobuf, as the client's ``Accept`` asks."""

    def get(self, request: Request) -> HttpResponseBase:
        media = negotiate(request.headers.get("Accept", ""), _V2_OFFERS)
        if media is None:
            raise KubeError(
                406, f"/openapi/v2 is served as {_JSON} or {_PROTOBUF}", reason="NotAcceptable"
            )
        content, etag = _v2_encoded(registry.revision())[media]
        quoted = f'"{etag}"'
        if request.headers.get("If-None-Match") == quoted:
            response = HttpResponse(status=304)
        else:
            response = HttpResponse(content, content_type=media)
        response["ETag"] = quoted
        response["Vary"] = "Accept"
        return response


class OpenAPIV3IndexView(OpenAPIView):
    """``GET /openapi/v3``: where each group version's document is (always JSON, as
    kube-openapi answers it whatever the ``Accept``)."""

    def get(self, request: Request) -> HttpResponseBase:
        paths = {}
        for group_version in group_version_names():
            document = v3_document(group_version)
            digest = hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()
            path = _v3_path(group_version)
            paths[path] = {"serverRelativeURL": f"/openapi/v3/{path}?hash={digest[:32].upper()}"}
        return JsonResponse({"paths": paths}, json_dumps_params={"separators": (",", ":")})


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
