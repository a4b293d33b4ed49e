"""``POST /api/v1/namespaces/{namespace}/pods/{name}/eviction``: evict a pod by its budget.

The body is a ``policy/v1`` Eviction (``policy/v1beta1`` is read the same; a body without
``apiVersion`` and ``kind`` is taken as one, as the Python client sends it): ``metadata.name``
the pod's, optional ``deleteOptions`` (gracePeriodSeconds, preconditions, dryRun). Answers
201 with a Success ``Status`` once the pod is being deleted; 429 when its disruption budget
allows no disruption (``core.eviction``). ``kubectl drain`` and the Python client's
``create_namespaced_pod_eviction`` call it.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.resources import PODS
from core.eviction import evict
from kube.routes import ERRORS, WRITE_PARAMETERS
from kube.status import KubeError
from kube.views import ResourceView, body, dry_run

__all__ = ["EvictionView", "read_eviction"]

EVICTION_VERSIONS = ("policy/v1", "policy/v1beta1")


def read_eviction(document: Any, name: str, namespace: str) -> dict[str, Any]:
    """Return the Eviction's ``deleteOptions``, checked against the path (400 when it does
    not match, as kube-apiserver answers)."""
    if not isinstance(document, dict):
        raise KubeError(400, "not a Eviction object")
    # Unset, they are the endpoint's (kube-apiserver decodes with its default group-version-kind).
    kind, version = document.get("kind") or "Eviction", document.get("apiVersion") or "policy/v1"
    if kind != "Eviction" or version not in EVICTION_VERSIONS:
        raise KubeError(
            400,
            f"expected a policy/v1 Eviction, got {document.get('apiVersion')!r} "
            f"{document.get('kind')!r}",
        )
    meta = document.get("metadata") or {}
    if not isinstance(meta, dict) or meta.get("name") != name:
        raise KubeError(400, "name in URL does not match name in Eviction object")
    if meta.get("namespace") not in (None, "", namespace):
        raise KubeError(
            400,
            "the namespace of the provided object does not match the namespace sent on the request",
        )
    options = document.get("deleteOptions") or {}
    if not isinstance(options, dict):
        raise KubeError(400, "deleteOptions must be a DeleteOptions object")
    grace = options.get("gracePeriodSeconds")
    if grace is not None and (isinstance(grace, bool) or not isinstance(grace, int)):
        raise KubeError(400, f"gracePeriodSeconds must be an integer, got {grace!r}")
    for value in options.get("dryRun") or []:
        if value != "All":
            raise KubeError(400, f"dryRun value {value!r} is not supported; use All")
    return options


class EvictionView(ResourceView):
    """Evict one pod (``pods/eviction``: a write on pods)."""

    resource = PODS
    subresource = "eviction"
    http_method_names = ["post", "options"]  # noqa: RUF012

    @extend_schema(
        operation_id="createNamespacedPodEviction",
        summary="Evict a Pod, unless that violates its PodDisruptionBudget (429)",
        request=OpenApiTypes.OBJECT,
        parameters=WRITE_PARAMETERS,
        responses={201: OpenApiTypes.OBJECT, 429: OpenApiTypes.OBJECT, **ERRORS},
        tags=["pods"],
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        options = read_eviction(body(request), self.kwargs["name"], self.kwargs["namespace"])
        dry = dry_run(request) or bool(options.get("dryRun"))
        with transaction.atomic():
            evict(self.get_object(lock=True), options, dry_run=dry)
        answer = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Success",
            "code": 201,
        }
        return Response(answer, status=201)
