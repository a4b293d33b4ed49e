"""Route a resource at its Kubernetes paths and describe each operation in the OpenAPI schema.

``resource_urls`` gives the collection (namespaced and across namespaces), the
item and, when the resource has one, the ``/status`` subresource, each view
documented with its bodies, its query parameters and its ``Status`` errors.
"""

from __future__ import annotations

from typing import Any

from django.urls import URLPattern, path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)

from kube.resources import Resource
from kube.serializers import StatusSerializer
from kube.views import CollectionView, ItemView, StatusView

__all__ = ["ERRORS", "LIST_PARAMETERS", "WRITE_PARAMETERS", "resource_urls"]

ERRORS: dict[int, Any] = dict.fromkeys((400, 401, 403, 404, 409, 415, 422), StatusSerializer)
_YAML = "application/yaml"
_MERGE = "application/merge-patch+json"
_JSON_PATCH = "application/json-patch+json"

LIST_PARAMETERS = [
    OpenApiParameter("labelSelector", str, description="e.g. app=web,tier in (a,b),!canary"),
    OpenApiParameter("fieldSelector", str, description="e.g. metadata.name=x,spec.queue=default"),
    OpenApiParameter("limit", int, description="Page size; the answer's metadata.continue follows"),
    OpenApiParameter("continue", str, description="The token of the next page"),
    OpenApiParameter(
        "resourceVersion",
        str,
        description="With watch=1 (not described here as it streams): replay changes after it",
    ),
]
_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"


def _article(noun: str) -> str:
    """Return "an" before a vowel sound (an Event, an MPIJob), else "a" (a Job, a PodGroup)."""
    first = noun[:1].upper()
    if noun[:2].isupper():  # an acronym read letter by letter: MPIJob, TFJob
        return "an" if first in "AEFHILMNORSX" else "a"
    return "an" if first in "AEIOU" else "a"


def _path_parameters(resource: Resource, *, item: bool) -> list[OpenApiParameter]:
    """Describe ``namespace`` and ``name`` (DNS names), with the example's values."""
    parameters = []
    if resource.namespaced:
        parameters.append(
            OpenApiParameter(
                "namespace",
                str,
                OpenApiParameter.PATH,
                pattern=_LABEL,
                examples=[OpenApiExample("default", value="default")],
            )
        )
    if item:
        name = str((resource.example or {}).get("metadata", {}).get("name", "example"))
        parameters.append(
            OpenApiParameter(
                "name", str, OpenApiParameter.PATH, examples=[OpenApiExample(name, value=name)]
            )
        )
    return parameters


WRITE_PARAMETERS = [
    OpenApiParameter("dryRun", str, enum=["All"], description="Validate only; store nothing")
]


def _documented(
    resource: Resource,
    base: type[Any],
    serializer: type[Any],
    list_serializer: type[Any] | None,
    *,
    list_only: bool = False,
) -> type[Any]:
    """Return a subclass of ``base`` serving ``resource``, with its schema attached."""
    tag = resource.qualified
    body = {"application/json": serializer, _YAML: serializer}
    patch = {_MERGE: OpenApiTypes.OBJECT, _JSON_PATCH: OpenApiTypes.OBJECT}
    object_answer = {200: serializer, **ERRORS}
    name = f"{resource.kind}{base.__name__.removesuffix('View')}{'All' if list_only else ''}"
    # Kubernetes' operation ids: listNamespacedJob, listJobForAllNamespaces, readQueueStatus...
    scope = "Namespaced" if resource.namespaced else ""
    suffix = "Status" if base is StatusView else ""

    def op(verb: str) -> str:
        if list_only:
            return f"{verb}{resource.kind}ForAllNamespaces"
        return f"{verb}{scope}{resource.kind}{suffix}"

    examples = (
        [OpenApiExample(f"A {resource.kind}", value=dict(resource.example), request_only=True)]
        if resource.example is not None
        else []
    )
    paths = [] if list_only else _path_parameters(resource, item=base is not CollectionView)
    operations: dict[str, Any] = {}
    if base is CollectionView:
        operations["get"] = extend_schema(
            operation_id=op("list"),
            summary=f"List {resource.plural}",
            parameters=[*paths, *LIST_PARAMETERS],
            responses={200: list_serializer, **ERRORS},
            tags=[tag],
        )
        if resource.writable and not list_only:
            operations["post"] = extend_schema(
                operation_id=op("create"),
                summary=f"Create {_article(resource.kind)} {resource.kind}",
                request=body,
                examples=examples,
                parameters=[*paths, *WRITE_PARAMETERS],
                responses={201: serializer, **ERRORS},
                tags=[tag],
            )
            operations["delete"] = extend_schema(
                operation_id=op("deleteCollection"),
                summary=f"Delete every {resource.kind} the selectors match",
                description=(
                    "All or nothing, in one transaction: answers the list of the deleted"
                    " objects; one refused deletion refuses the call."
                ),
                request=None,
                parameters=[*paths, *LIST_PARAMETERS[:2], *WRITE_PARAMETERS],
                responses={200: list_serializer, **ERRORS},
                tags=[tag],
            )
    else:
        what = (
            f"{resource.kind} status"
            if base is StatusView
            else f"{_article(resource.kind)} {resource.kind}"
        )
        operations["get"] = extend_schema(
            operation_id=op("read"),
            summary=f"Read {what}",
            parameters=paths,
            responses=object_answer,
            tags=[tag],
        )
        if resource.writable:
            for method, verb, request in (("put", "Replace", body), ("patch", "Patch", patch)):
                operations[method] = extend_schema(
                    operation_id=op(verb.lower()),
                    summary=f"{verb} {what}",
                    request=request,
                    parameters=[*paths, *WRITE_PARAMETERS],
                    responses=object_answer,
                    tags=[tag],
                )
            if base is ItemView:
                operations["delete"] = extend_schema(
                    operation_id=op("delete"),
                    summary=f"Delete {what}",
                    parameters=[*paths, *WRITE_PARAMETERS],
                    responses=object_answer,
                    tags=[tag],
                )
    attributes: dict[str, Any] = {"resource": resource, "__doc__": base.__doc__}
    if list_only or not resource.writable:
        attributes["http_method_names"] = ["get", "options"]
    view = type(name, (base,), attributes)
    return extend_schema_view(**operations)(view)


def resource_urls(
    resource: Resource,
    serializer: type[Any],
    list_serializer: type[Any],
    *,
    all_namespaces: bool = True,
) -> list[URLPattern]:
    """Return the URL patterns of ``resource`` at its Kubernetes paths."""
    prefix = f"apis/{resource.group}/{resource.version}" if resource.group else "api/v1"
    collection = _documented(resource, CollectionView, serializer, list_serializer)
    item = _documented(resource, ItemView, serializer, None)
    name = resource.plural
    patterns = []
    if resource.namespaced:
        base = f"{prefix}/namespaces/<str:namespace>/{resource.plural}"
        patterns.append(path(base, collection.as_view(), name=f"{name}-list"))
        if all_namespaces:
            every = _documented(
                resource, CollectionView, serializer, list_serializer, list_only=True
            )
            patterns.append(
                path(f"{prefix}/{resource.plural}", every.as_view(), name=f"{name}-all")
            )
    else:
        base = f"{prefix}/{resource.plural}"
        patterns.append(path(base, collection.as_view(), name=f"{name}-list"))
    patterns.append(path(f"{base}/<str:name>", item.as_view(), name=f"{name}-detail"))
    if resource.status_subresource:
        status = _documented(resource, StatusView, serializer, None)
        patterns.append(path(f"{base}/<str:name>/status", status.as_view(), name=f"{name}-status"))
    return patterns
