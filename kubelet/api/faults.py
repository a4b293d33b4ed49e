"""Fault injection through the API: ``POST .../nodes/<name>/faults``, ``POST .../pods/<name>/faults``.

A subresource in Kubernetes' manner (as ``pods/<name>/eviction`` is): the body is a ``Fault``
object (``apiVersion: faults.volcano.sh/v1alpha1``) whose ``spec.type`` names the fault:

- on a node: ``NodeDown`` (``spec.reason``), ``NodeUp``, ``Cordon``, ``Uncordon``,
  ``BindFailure`` (``spec.message``: every bind to the node fails until ``BindRecovery``);
- on a pod: ``PodFail`` (``spec.exitCode``, default 1; ``spec.reason``), ``PodEvict``.

Operators only (the roles table's ``faults`` entry); every injection is audited by
``kubelet.faults.fault_inject``, which ``manage.py fault`` and the console share. The answer is
the Fault with ``status`` saying what happened (201); a bad spec is 422 naming the field, a pod
that is no longer live 409.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from core.models import Node, Pod
from kube.routes import ERRORS
from kube.status import Cause, KubeError
from kube.views import KubeAPIView, body
from kubelet.faults import FaultRefusedError, fault_inject

__all__ = ["NodeFaultView", "PodFaultView"]

API_VERSION = "faults.volcano.sh/v1alpha1"


def _spec(request: Request) -> dict[str, Any]:
    document = body(request)
    spec = document.get("spec") if isinstance(document, dict) else None
    if not isinstance(spec, dict):
        raise KubeError(422, "a Fault needs a spec object", kind="Fault",
                        causes=[Cause("spec", "spec must be an object with a type")])  # fmt: skip
    return spec


def _inject(spec: dict[str, Any], target: str, **where: Any) -> Response:
    try:
        result = fault_inject(spec=spec, **where)
    except FaultRefusedError as exc:
        if exc.conflict:
            raise KubeError(409, exc.message, kind="Fault", name=target) from exc
        raise KubeError(422, exc.message, kind="Fault", name=target,
                        causes=[Cause(exc.field, exc.message)]) from exc  # fmt: skip
    return Response(
        {"apiVersion": API_VERSION, "kind": "Fault", "metadata": {"name": target},
         "spec": spec, "status": {"injected": True, **result}},
        status=201,
    )  # fmt: skip


class FaultView(KubeAPIView):
    """Base: only the roles table's ``faults`` entry (operators) may inject."""

    access_name = "faults"
    http_method_names = ["post", "options"]  # noqa: RUF012


class NodeFaultView(FaultView):
    """Inject a fault into one node."""

    @extend_schema(
        operation_id="createNodeFault",
        summary="Inject a fault into a node (NodeDown, NodeUp, Cordon, Uncordon, BindFailure, "
        "BindRecovery)",
        request=OpenApiTypes.OBJECT,
        responses={201: OpenApiTypes.OBJECT, **ERRORS},
        tags=["faults"],
    )
    def post(self, request: Request, name: str) -> Response:
        node = Node.objects.filter(name=name).first()
        if node is None:
            raise KubeError(404, f'nodes "{name}" not found', kind="nodes", name=name)
        return _inject(_spec(request), name, node=node)


class PodFaultView(FaultView):
    """Inject a fault into one pod."""

    @extend_schema(
        operation_id="createNamespacedPodFault",
        summary="Inject a fault into a pod (PodFail, PodEvict)",
        request=OpenApiTypes.OBJECT,
        responses={201: OpenApiTypes.OBJECT, **ERRORS},
        tags=["faults"],
    )
    def post(self, request: Request, namespace: str, name: str) -> Response:
        pod = Pod.objects.filter(namespace=namespace, name=name).first()
        if pod is None:
            raise KubeError(404, f'pods "{name}" not found', kind="pods", name=name)
        return _inject(_spec(request), name, pod=pod)
