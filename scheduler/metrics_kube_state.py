"""kube-state-metrics' series for our nodes, namespaces and pods, at ``/metrics/kube-state-metrics``.

Why: Volcano's Grafana dashboards (Global Overview, Queue View, Namespace View) read the
cluster from kube-state-metrics (``kube_node_*``, ``kube_pod_*``, ``kube_namespace_labels``) and
from Volcano's fork of it (``kube_pod_volcano_container_*``, which adds the pod's ``queue`` and
``volcano_namespace``), filtered by the scrape job ``job="kube-state-metrics"``. The console is
the cluster's API server, so it answers those series itself from its rows, on a path of its own
that a Prometheus scrape job named ``kube-state-metrics`` reads (README, "Prometheus").

Names, labels and units are kube-state-metrics' (v2): a resource name is sanitised
(``nvidia.com/gpu`` → ``nvidia_com_gpu``), CPU is in cores (``unit="core"``), memory in bytes
(``unit="byte"``), the rest are counts (``unit="integer"``). Volcano's fork names the GPU
``gpu`` (its Queue View asks ``resource="gpu"``). A pod's requests are reported on its first
container (our pods keep one request vector per pod), so sums per pod are exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.http import HttpRequest, HttpResponse

from apis.prometheus_text import CONTENT_TYPE, Family, render
from core.models import Namespace, Node, Pod

__all__ = ["kube_state_families", "kube_state_view"]

PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")


def _resource(name: str, milli: float, *, fork: bool = False) -> tuple[str, str, float]:
    """Return kube-state-metrics' (resource, unit, value) for an amount in milli-units."""
    if name == "cpu":
        return "cpu", "core", milli / 1000
    if name == "memory":
        return "memory", "byte", milli / 1000
    if fork and name == "nvidia.com/gpu":
        return "gpu", "integer", milli / 1000
    return name.replace(".", "_").replace("/", "_").replace("-", "_"), "integer", milli / 1000


def _node_families() -> Iterator[Family]:
    info = Family("kube_node_info", "gauge", "Information about a cluster node.")
    capacity = Family("kube_node_status_capacity", "gauge", "The capacity for different resources of a node.")  # fmt: skip
    allocatable = Family("kube_node_status_allocatable", "gauge",
                         "The allocatable for different resources of a node that are available for scheduling.")  # fmt: skip
    for name, cap, alloc in Node.objects.order_by("name").values_list(
        "name", "capacity", "allocatable"
    ):
        info.add({"node": name}, 1)
        for family, amounts in ((capacity, cap or alloc), (allocatable, alloc)):
            for key, milli in sorted((amounts or {}).items()):
                resource, unit, value = _resource(key, float(milli))
                family.add({"node": name, "resource": resource, "unit": unit}, value)
    yield from (info, capacity, allocatable)


def _container(spec: Any) -> str:
    containers = spec.get("containers") if isinstance(spec, dict) else None
    if containers and isinstance(containers[0], dict) and containers[0].get("name"):
        return str(containers[0]["name"])
    return "main"


def _pod_families() -> Iterator[Family]:
    running = Family("kube_pod_container_status_running", "gauge",
                     "Describes whether the container is currently in running state.")  # fmt: skip
    phase = Family("kube_pod_status_phase", "gauge", "The pods current phase.")
    requests = Family("kube_pod_container_resource_requests", "gauge",
                      "The number of requested request resource by a container.")  # fmt: skip
    v_running = Family("kube_pod_volcano_container_status_running", "gauge",
                       "Describes whether the container of a Volcano pod is currently running.")  # fmt: skip
    v_requests = Family("kube_pod_volcano_container_resource_requests", "gauge",
                        "The number of requested resource by a container of a Volcano pod.")  # fmt: skip
    rows = Pod.objects.order_by("namespace", "name").values_list(
        "namespace", "name", "uid", "phase", "spec", "requests", "node__name",
        "job__queue", "pod_group__queue",
    )  # fmt: skip
    # The job's queue first: a finished job's PodGroup may be gone while its pods stay.
    for namespace, name, uid, pod_phase, spec, amounts, node, job_queue, group_queue in rows:
        queue = job_queue or group_queue
        container = _container(spec)
        pod = {"namespace": namespace, "pod": name, "uid": str(uid)}
        is_running = 1.0 if pod_phase == "Running" else 0.0
        running.add({**pod, "container": container}, is_running)
        for each in PHASES:
            phase.add({**pod, "phase": each}, 1.0 if pod_phase == each else 0.0)
        volcano = {**pod, "container": container, "queue": queue or "",
                   "volcano_namespace": namespace}  # fmt: skip
        v_running.add(volcano, is_running)
        where = {"node": node or ""}
        for key, milli in sorted((amounts or {}).items()):
            if key == "pods":
                continue
            resource, unit, value = _resource(key, float(milli))
            requests.add({**pod, "container": container, **where, "resource": resource,
                          "unit": unit}, value)  # fmt: skip
            resource, unit, value = _resource(key, float(milli), fork=True)
            v_requests.add({**volcano, **where, "resource": resource, "unit": unit}, value)
    yield from (running, phase, requests, v_running, v_requests)


def kube_state_families() -> Iterator[Family]:
    """Yield the node, namespace and pod families, read from the rows now."""
    yield from _node_families()
    labels = Family("kube_namespace_labels", "gauge", "Kubernetes labels converted to Prometheus labels.")  # fmt: skip
    for name in Namespace.objects.order_by("name").values_list("name", flat=True):
        labels.add({"namespace": name}, 1)
    yield labels
    yield from _pod_families()


def kube_state_view(request: HttpRequest) -> HttpResponse:
    """Serve the kube-state-metrics series in the Prometheus text format (no login: scrapers)."""
    return HttpResponse(render(list(kube_state_families())), content_type=CONTENT_TYPE)
