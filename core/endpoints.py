"""The endpoints controller: per Service with a selector, an Endpoints of its pods' addresses.

As kube-controller-manager's: a Service's ``spec.selector`` picks the pods of its namespace
whose labels hold every pair; each picked pod that has an address (``status.podIP``), is not
being deleted and has not ended is an address of the Endpoints named after the Service:
under ``addresses`` when its containers are ready (or the Service publishes not-ready
addresses), under ``notReadyAddresses`` otherwise. Ports are the Service's ports at their
``targetPort``; a headless Service without ports lists bare addresses. An address carries
the pod's node and a reference to it, and its ``hostname`` when the pod's ``subdomain`` is
the Service's name (how Volcano's ``<pod>.<job>`` host names resolve). Endpoints whose
Service went (or lost its selector) are deleted.

The same addresses go into one EndpointSlice per Service (``discovery.k8s.io/v1``, named
``<service>-<5 letters>``, labelled ``kubernetes.io/service-name``, owned by the Service),
which ``kubectl describe service`` reads; each endpoint's ``conditions`` say whether it is
ready. Deviation: kube-controller-manager splits slices at 100 endpoints; here one holds all.

Level-triggered: each pass computes every Endpoints and writes only those that differ. A pass
first compares a fingerprint of the Services, the addressed pods and the Endpoints with the
last pass's, and does nothing when none changed, so an idle cluster costs three aggregates.
Deviation: a named ``targetPort`` is not resolved against the pods' container ports (the
port is left out).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from typing import Any

from django.db import transaction
from django.db.models import Count, Max, Sum
from django.db.models.fields.json import KT

from core.models import CLUSTER_IP_NONE, Endpoints, EndpointSlice, Pod, PodPhase, Service
from kube.store import generate_name

__all__ = ["HEADLESS_LABEL", "endpoint_subsets", "reconcile_endpoints", "slice_content"]

HEADLESS_LABEL = "service.kubernetes.io/headless"
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
MANAGED_BY = "endpointslice-controller.k8s.io"
_ENDED = (PodPhase.SUCCEEDED, PodPhase.FAILED)

# The fingerprint of the rows the last pass read (None: no pass yet in this process).
_last: tuple[object, ...] | None = None


def _aggregate(queryset: Any) -> tuple[object, ...]:
    found = queryset.aggregate(n=Count("pk"), v=Sum("resource_version"), top=Max("pk"))
    return (found["n"], found["v"], found["top"])


def _fingerprint() -> tuple[object, ...]:
    return (
        _aggregate(Service.objects.all()),
        _aggregate(Pod.objects.exclude(pod_ip="")),
        _aggregate(Endpoints.objects.all()),
        _aggregate(EndpointSlice.objects.all()),
    )


def _ready(pod: dict[str, Any]) -> bool:
    """Return whether the pod's containers are ready (``core.manifests.pod_status``)."""
    if pod["phase"] != PodPhase.RUNNING:
        return False
    return pod["running_since"] is not None or pod["back_off_until"] is None


def _address(pod: dict[str, Any], service: str) -> dict[str, Any]:
    address: dict[str, Any] = {"ip": pod["pod_ip"]}
    if pod["hostname"] and pod["subdomain"] == service:
        address["hostname"] = pod["hostname"]
    if pod["node__name"]:
        address["nodeName"] = pod["node__name"]
    address["targetRef"] = {
        "kind": "Pod",
        "namespace": pod["namespace"],
        "name": pod["name"],
        "uid": str(pod["uid"]),
    }
    return address


def _picked(service: Service, pods: list[dict[str, Any]]) -> list[tuple[dict[str, Any], bool]]:
    """Return the pods ``service`` selects, each with whether it serves, by address."""
    selector = service.selector or {}
    picked = [
        (pod, service.publish_not_ready_addresses or _ready(pod))
        for pod in pods
        if all((pod["labels"] or {}).get(key) == value for key, value in selector.items())
    ]
    return sorted(picked, key=lambda item: ipaddress.ip_address(item[0]["pod_ip"]))


def _target_ports(service: Service) -> list[dict[str, Any]] | None:
    """Return the endpoint ports of ``service`` (None: it has ports, none of them numbered)."""
    ports = []
    for port in service.ports or ():
        target = port.get("targetPort", port.get("port"))
        if not isinstance(target, int):
            continue  # a named port (see the module's docstring)
        item: dict[str, Any] = {"port": target, "protocol": port.get("protocol", "TCP")}
        if port.get("name"):
            item = {"name": port["name"], **item}
        if port.get("appProtocol"):
            item["appProtocol"] = port["appProtocol"]
        ports.append(item)
    return None if service.ports and not ports else ports


def endpoint_subsets(service: Service, pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the ``subsets`` of ``service``'s Endpoints among ``pods`` (its namespace's)."""
    picked = _picked(service, pods)
    ports = _target_ports(service)
    if not picked or ports is None:
        return []
    subset: dict[str, Any] = {}
    ready = [_address(pod, service.name) for pod, serving in picked if serving]
    unready = [_address(pod, service.name) for pod, serving in picked if not serving]
    if ready:
        subset["addresses"] = ready
    if unready:
        subset["notReadyAddresses"] = unready
    if ports:
        subset["ports"] = ports
    return [subset]


def slice_content(service: Service, pods: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """Return the ``endpoints`` and ``ports`` of ``service``'s EndpointSlice."""
    ports = _target_ports(service)
    endpoints = []
    for pod, serving in _picked(service, pods) if ports is not None else ():
        address = _address(pod, service.name)
        endpoint: dict[str, Any] = {
            "addresses": [address.pop("ip")],
            "conditions": {"ready": serving, "serving": serving, "terminating": False},
        }
        endpoints.append({**endpoint, **address})
    return endpoints, [{"name": "", **port} for port in ports or ()]


def _pods_of(namespaces: set[str]) -> dict[str, list[dict[str, Any]]]:
    """Return the addressed, live pods of ``namespaces``, by namespace (one query)."""
    found: dict[str, list[dict[str, Any]]] = {namespace: [] for namespace in namespaces}
    rows = (
        Pod.objects.filter(namespace__in=namespaces, deletion_time__isnull=True)
        .exclude(pod_ip="")
        .exclude(phase__in=_ENDED)
        .annotate(hostname=KT("spec__hostname"), subdomain=KT("spec__subdomain"))
        .values(
            "namespace",
            "name",
            "uid",
            "labels",
            "pod_ip",
            "phase",
            "running_since",
            "back_off_until",
            "node__name",
            "hostname",
            "subdomain",
        )
    )
    for row in rows:
        found[row["namespace"]].append(row)
    return found


def _service_reference(service: Service) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "name": service.name,
        "uid": str(service.uid),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _sync_slices(services: list[Service], pods: dict[str, list[dict[str, Any]]]) -> int:
    """Bring each Service's EndpointSlice to its pods; delete the slices of no Service."""
    written = 0
    stored: dict[tuple[str, str], EndpointSlice] = {}
    for found in EndpointSlice.objects.select_for_update():
        key = (found.namespace, found.labels.get(SERVICE_NAME_LABEL, ""))
        if key in stored:  # one slice per Service: a second one goes
            found.delete()
            written += 1
        else:
            stored[key] = found
    for service in services:
        labels = {
            **dict(service.labels or {}),
            SERVICE_NAME_LABEL: service.name,
            MANAGED_BY_LABEL: MANAGED_BY,
        }
        if service.cluster_ip == CLUSTER_IP_NONE:
            labels[HEADLESS_LABEL] = ""
        endpoints, ports = slice_content(service, pods[service.namespace])
        kept = stored.pop((service.namespace, service.name), None)
        if kept is not None and [kept.endpoints, kept.ports, kept.labels] == [
            endpoints,
            ports,
            labels,
        ]:
            continue
        found = kept or EndpointSlice(
            namespace=service.namespace, name=generate_name(service.name + "-")
        )
        if kept is None:
            found.owner_references = [_service_reference(service)]
        found.endpoints, found.ports, found.labels = endpoints, ports, labels
        found.save()
        written += 1
    for gone in stored.values():
        gone.delete()
        written += 1
    return written


def reconcile_endpoints(now: dt.datetime | None = None) -> int:
    """Bring every Endpoints and EndpointSlice to what its Service selects; return how many
    were written."""
    global _last
    fingerprint = _fingerprint()
    if fingerprint == _last:
        return 0
    written = 0
    with transaction.atomic():
        services = [s for s in Service.objects.all() if s.selector]
        pods = _pods_of({s.namespace for s in services})
        stored = {(e.namespace, e.name): e for e in Endpoints.objects.select_for_update()}
        for service in services:
            labels = dict(service.labels or {})
            if service.cluster_ip == CLUSTER_IP_NONE:
                labels[HEADLESS_LABEL] = ""
            subsets = endpoint_subsets(service, pods[service.namespace])
            endpoints = stored.pop((service.namespace, service.name), None)
            if endpoints is None:
                endpoints = Endpoints(namespace=service.namespace, name=service.name)
            elif endpoints.subsets == subsets and endpoints.labels == labels:
                continue
            endpoints.subsets = subsets
            endpoints.labels = labels
            endpoints.save()
            written += 1
        for gone in stored.values():  # their Service went, or selects nothing by label
            gone.delete()
            written += 1
        written += _sync_slices(services, pods)
    _last = None if written else fingerprint
    return written
