"""``metrics.k8s.io/v1beta1``: what metrics-server serves, so ``kubectl top`` works.

``kubectl top nodes`` and ``kubectl top pods`` read NodeMetrics and PodMetrics from this
group. A simulated container uses what it requests while it runs, or the share of it its pod's
``volcano.sh/sim-usage`` annotation names (``kubelet/sim_usage.py``); a container in
CrashLoopBackOff, or a pod not yet started, uses nothing. A node's usage is the sum over its
running pods. As metrics-server does,
only running pods have metrics and a NotReady node has none (kubectl prints ``<unknown>``).

Reads follow the ``pods`` and ``nodes`` entries of the roles table: whoever may list pods in
a namespace may see their usage there.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.roles import allowed_namespaces
from apis.errors import QuantityError
from apis.quantity import parse_quantity
from apis.wire import format_resources, format_time
from core.api.nodes import NODES
from core.api.resources import PODS
from core.models import Node, Pod, PodPhase
from kube.listing import ListQuery, filtered
from kube.resources import Resource
from kube.routes import ERRORS
from kube.selectors import parse_field_selector, parse_label_selector
from kube.status import KubeError
from kube.views import KubeAPIView
from kubelet.sim_usage import usage_factors

__all__ = [
    "GROUP_VERSION",
    "NamespacedPodMetricsListView",
    "NodeMetricsItemView",
    "NodeMetricsListView",
    "PodMetricsItemView",
    "PodMetricsListView",
    "container_usage",
]

GROUP_VERSION = "metrics.k8s.io/v1beta1"
WINDOW = "30s"  # metrics-server's default resolution
USED = ("cpu", "memory")


def container_usage(
    container: dict[str, Any], factors: Mapping[str, float] | None = None
) -> dict[str, int]:
    """Return a running simulated container's usage in milli-units: its requests (or, as
    Kubernetes defaults requests, its limits) of cpu and memory, times its pod's ``factors``
    (``usage_factors``; all 1 when None); 0 for what it does not ask."""
    resources = container.get("resources") or {}
    asked = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    usage = {}
    for name in USED:
        try:
            asked_milli = parse_quantity(asked[name]) if name in asked else 0
            usage[name] = round(asked_milli * (factors or {}).get(name, 1.0))
        except QuantityError:
            usage[name] = 0  # admission refuses such a quantity; an old row reads as nothing
    return usage


def _running(pods: QuerySet[Pod]) -> QuerySet[Pod]:
    """Pods with running containers: Running, started, not in a back-off."""
    return pods.filter(
        phase=PodPhase.RUNNING, running_since__isnull=False, back_off_until__isnull=True
    )


def _query(request: Request, resource: Resource, namespace: str | None) -> ListQuery:
    params = request.query_params
    return ListQuery(
        namespace=namespace,
        allowed_namespaces=allowed_namespaces(request.user) if resource.namespaced else None,
        labels=tuple(parse_label_selector(params.get("labelSelector", ""))),
        fields=tuple(
            parse_field_selector(params.get("fieldSelector", ""), resource.field_selectors)
        ),
    )


def _meta(name: str, namespace: str, labels: dict[str, str] | None) -> dict[str, Any]:
    # metrics-server stamps its metrics objects when it serves them, as here.
    meta: dict[str, Any] = {"name": name, "creationTimestamp": format_time(timezone.now())}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = dict(labels)
    return meta


def _list(kind: str, items: list[dict[str, Any]]) -> Response:
    return Response(
        {"kind": f"{kind}List", "apiVersion": GROUP_VERSION, "metadata": {}, "items": items}
    )


class _NodeMetrics(KubeAPIView):
    """Each Ready node's usage (one node, or every one)."""

    access_name = "nodes"
    http_method_names = ["get", "options"]  # noqa: RUF012

    def serve(self, request: Request, name: str | None) -> Response:
        nodes = filtered(NODES, _query(request, NODES, None)).filter(ready=True)
        if name is not None:
            nodes = nodes.filter(name=name)
        nodes_list: list[Node] = list(nodes.order_by("name"))
        used: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(USED, 0))
        pods = _running(Pod.objects.filter(node__in=[node.pk for node in nodes_list]))
        for node_pk, spec, notes in pods.values_list("node_id", "spec", "annotations"):
            factors = usage_factors(notes)
            for container in (spec or {}).get("containers") or []:
                for resource, amount in container_usage(container, factors).items():
                    used[node_pk][resource] += amount
        now = format_time(timezone.now())
        items = [
            {
                "kind": "NodeMetrics",
                "apiVersion": GROUP_VERSION,
                "metadata": _meta(node.name, "", node.labels),
                "timestamp": now,
                "window": WINDOW,
                "usage": format_resources(used[node.pk]),
            }
            for node in nodes_list
        ]
        if name is None:
            return _list("NodeMetrics", items)
        if not items:
            raise KubeError(404, f'nodemetrics.metrics.k8s.io "{name}" not found', name=name)
        return Response(items[0])


class NodeMetricsListView(_NodeMetrics):
    """``GET .../nodes``."""

    @extend_schema(
        operation_id="listNodeMetrics",
        summary="Usage of every Ready node, as metrics-server reports it (kubectl top nodes)",
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        tags=["metrics.k8s.io"],
    )
    def get(self, request: Request) -> Response:
        return self.serve(request, None)


class NodeMetricsItemView(_NodeMetrics):
    """``GET .../nodes/<name>``."""

    @extend_schema(
        operation_id="readNodeMetrics",
        summary="Usage of one node",
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        tags=["metrics.k8s.io"],
    )
    def get(self, request: Request, name: str) -> Response:
        return self.serve(request, name)


class _PodMetrics(KubeAPIView):
    """Running pods' usage, per container (one pod, a namespace's, or every allowed one)."""

    access_name = "pods"
    http_method_names = ["get", "options"]  # noqa: RUF012

    def serve(self, request: Request, namespace: str | None, name: str | None) -> Response:
        pods = _running(filtered(PODS, _query(request, PODS, namespace)))
        if name is not None:
            pods = pods.filter(name=name)
        now = format_time(timezone.now())
        items = []
        rows = pods.order_by("namespace", "name").values_list(
            "name", "namespace", "labels", "spec", "annotations"
        )
        for pod_name, pod_namespace, labels, spec, notes in rows:
            factors = usage_factors(notes)
            containers = [
                {
                    "name": str(container.get("name", "")),
                    "usage": format_resources(container_usage(container, factors)),
                }
                for container in (spec or {}).get("containers") or []
            ]
            items.append(
                {
                    "kind": "PodMetrics",
                    "apiVersion": GROUP_VERSION,
                    "metadata": _meta(pod_name, pod_namespace, labels),
                    "timestamp": now,
                    "window": WINDOW,
                    "containers": containers,
                }
            )
        if name is None:
            return _list("PodMetrics", items)
        if not items:
            raise KubeError(404, f'podmetrics.metrics.k8s.io "{name}" not found', name=name)
        return Response(items[0])


class PodMetricsListView(_PodMetrics):
    """``GET .../pods``: every namespace the reader may read."""

    @extend_schema(
        operation_id="listPodMetricsForAllNamespaces",
        summary="Usage of running pods in every namespace you may read (kubectl top pods -A)",
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        tags=["metrics.k8s.io"],
    )
    def get(self, request: Request) -> Response:
        return self.serve(request, None, None)


class NamespacedPodMetricsListView(_PodMetrics):
    """``GET .../namespaces/<ns>/pods``."""

    @extend_schema(
        operation_id="listNamespacedPodMetrics",
        summary="Usage of a namespace's running pods, per container (kubectl top pods)",
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        tags=["metrics.k8s.io"],
    )
    def get(self, request: Request, namespace: str) -> Response:
        return self.serve(request, namespace, None)


class PodMetricsItemView(_PodMetrics):
    """``GET .../namespaces/<ns>/pods/<name>``."""

    @extend_schema(
        operation_id="readNamespacedPodMetrics",
        summary="Usage of one running pod, per container",
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        tags=["metrics.k8s.io"],
    )
    def get(self, request: Request, namespace: str, name: str) -> Response:
        return self.serve(request, namespace, name)
