"""Service and Endpoints manifests (v1).

A Service is validated as kube-apiserver does it: a known ``type``; ``ports`` required but
for a headless Service, each with a ``port`` in 1-65535, a protocol TCP, UDP or SCTP,
and a ``name`` once there are several; ``clusterIP`` ``None`` or an address of the service
range, immutable once set. A Service that names no ``clusterIP`` is given one
(``core.network``), and a NodePort one a ``nodePort`` per port. Endpoints are written by
the endpoints controller (``core.endpoints``) and served as they are, and so are
EndpointSlices (``discovery.k8s.io/v1``).
"""

from __future__ import annotations

import ipaddress
from typing import Any, ClassVar

from apis.wire import Fields, Manifest
from core.models import CLUSTER_IP_NONE, Endpoints, EndpointSlice, Service, ServiceType
from core.network import SERVICE_CIDR, allocate_cluster_ip
from kube.admission_causes import Causes
from kube.manifest_kinds import Kind, Loaded

__all__ = ["EndpointSliceKind", "EndpointsKind", "ServiceKind"]

PROTOCOLS = ("TCP", "UDP", "SCTP")
NODE_PORTS = range(30000, 32768)
# Spec fields kube-apiserver defaults or clients send that nothing here acts on.
IGNORED_SPEC = (
    "ipFamilies", "ipFamilyPolicy", "internalTrafficPolicy", "externalTrafficPolicy",
    "sessionAffinityConfig", "loadBalancerIP", "loadBalancerSourceRanges", "externalIPs",
    "allocateLoadBalancerNodePorts", "loadBalancerClass", "healthCheckNodePort",
    "trafficDistribution",
)  # fmt: skip


def _read_port(port: Fields) -> dict[str, Any]:
    item: dict[str, Any] = {}
    if name := port.string("name"):
        item["name"] = name
    protocol = port.string("protocol", "TCP")
    if protocol not in PROTOCOLS:
        allowed = ", ".join(f'"{p}"' for p in PROTOCOLS)
        raise port.error(
            "protocol", f"Unsupported value: {protocol!r}: supported values: {allowed}"
        )
    item["protocol"] = protocol
    number = port.optional_integer("port")
    if number is None:
        raise port.error("port", "Required value")
    if not 1 <= number <= 65535:
        raise port.error("port", f"Invalid value: {number}: must be between 1 and 65535, inclusive")
    item["port"] = number
    target = port.raw("targetPort")
    if target is None or target == 0 or target == "":
        target = number
    if isinstance(target, bool) or not isinstance(target, int | str):
        raise port.error("targetPort", "expected a port number or name")
    if isinstance(target, int) and not 1 <= target <= 65535:
        raise port.error(
            "targetPort", f"Invalid value: {target}: must be between 1 and 65535, inclusive"
        )
    item["targetPort"] = target
    node_port = port.optional_integer("nodePort")
    if node_port:
        if node_port not in NODE_PORTS:
            raise port.error(
                "nodePort", f"Invalid value: {node_port}: provided port is not in the valid "
                "range. The range of valid ports is 30000-32767",
            )  # fmt: skip
        item["nodePort"] = node_port
    if app := port.string("appProtocol"):
        item["appProtocol"] = app
    port.done()
    return item


class ServiceKind(Kind):
    """``v1`` Service."""

    api_version = "v1"
    kind = "Service"
    resource = "service"
    model = Service
    spec_fields = (
        "type",
        "cluster_ip",
        "selector",
        "ports",
        "publish_not_ready_addresses",
        "external_name",
        "session_affinity",
    )
    wire_paths: ClassVar[dict[str, str]] = {
        "name": "metadata.name",
        "type": "spec.type",
        "cluster_ip": "spec.clusterIP",
    }

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        service: Service = loaded.instance
        spec = doc.obj("spec")
        service.type = spec.string("type", ServiceType.CLUSTER_IP)
        if service.type not in ServiceType.values:
            allowed = ", ".join(f'"{t}"' for t in ServiceType.values)
            raise spec.error(
                "type", f"Unsupported value: {service.type!r}: supported values: {allowed}"
            )
        service.cluster_ip = spec.string("clusterIP")
        ips = spec.strings("clusterIPs")
        if ips and service.cluster_ip and ips[0] != service.cluster_ip:
            raise spec.error("clusterIPs[0]", "Invalid value: must match `clusterIP`")
        service.cluster_ip = service.cluster_ip or (ips[0] if ips else "")
        if service.cluster_ip and service.cluster_ip != CLUSTER_IP_NONE:
            try:
                address = ipaddress.ip_address(service.cluster_ip)
            except ValueError as exc:
                raise spec.error(
                    "clusterIP",
                    f"Invalid value: {service.cluster_ip!r}: must be a valid IP address",
                ) from exc
            if address.version != 4:
                raise spec.error("clusterIP", "Invalid value: only IPv4 is served")
        service.selector = spec.string_map("selector")
        service.ports = [_read_port(port) for port in spec.objects("ports")]
        service.publish_not_ready_addresses = spec.boolean("publishNotReadyAddresses", False)
        service.external_name = spec.string("externalName")
        service.session_affinity = spec.string("sessionAffinity", "None")
        if service.session_affinity not in ("None", "ClientIP"):
            raise spec.error(
                "sessionAffinity",
                f'Unsupported value: {service.session_affinity!r}: supported values: "ClientIP", "None"',
            )
        spec.ignore(*IGNORED_SPEC)
        spec.done()
        doc.ignore("status")

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Check ports against the type; keep or allocate the cluster IP and node ports."""
        service: Service = loaded.instance
        causes = Causes()
        external = service.type == ServiceType.EXTERNAL_NAME
        if external and not service.external_name:
            causes.required("spec.externalName")
        if not external and not service.ports and service.cluster_ip != CLUSTER_IP_NONE:
            causes.required("spec.ports")
        names = [port.get("name", "") for port in service.ports]
        if len(names) > 1:
            for index, name in enumerate(names):
                if not name:
                    causes.required(f"spec.ports[{index}].name")
                elif name in names[:index]:
                    causes.duplicate(f"spec.ports[{index}].name", f"Duplicate value: {name!r}")
        if existing is not None:
            if not service.cluster_ip:
                service.cluster_ip = existing.cluster_ip
            elif existing.cluster_ip and service.cluster_ip != existing.cluster_ip:
                causes.invalid(
                    "spec.clusterIP",
                    f"Invalid value: {service.cluster_ip!r}: field is immutable",
                )
        if external:
            service.cluster_ip = ""
        elif service.cluster_ip not in ("", CLUSTER_IP_NONE):
            if ipaddress.ip_address(service.cluster_ip) not in SERVICE_CIDR:
                causes.invalid(
                    "spec.clusterIP",
                    f"Invalid value: {service.cluster_ip!r}: provided IP is not in the valid "
                    f"range. The range of valid IPs is {SERVICE_CIDR}",
                )
            else:
                taken = Service.objects.filter(cluster_ip=service.cluster_ip)
                if existing is not None:
                    taken = taken.exclude(pk=existing.pk)
                if taken.exists():
                    causes.invalid(
                        "spec.clusterIP",
                        f"Invalid value: {service.cluster_ip!r}: provided IP is already allocated",
                    )
        causes.raise_if_any(kind="Service", name=service.name)
        if not external and not service.cluster_ip:
            service.cluster_ip = allocate_cluster_ip()
        if service.type in (ServiceType.NODE_PORT, ServiceType.LOAD_BALANCER):
            _allocate_node_ports(service, existing)

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        return write_service(instance)


def _allocate_node_ports(service: Service, existing: Any | None) -> None:
    """Give each port without a ``nodePort`` the lowest one no other Service holds."""
    others = Service.objects.exclude(ports=[])
    if existing is not None:
        others = others.exclude(pk=existing.pk)
    used = {
        int(port["nodePort"])
        for ports in others.values_list("ports", flat=True)
        for port in ports or ()
        if port.get("nodePort")
    }
    used |= {int(p["nodePort"]) for p in service.ports if p.get("nodePort")}
    free = (number for number in NODE_PORTS if number not in used)
    service.ports = [
        port if port.get("nodePort") else {**port, "nodePort": next(free)} for port in service.ports
    ]


class EndpointsKind(Kind):
    """``v1`` Endpoints: ``subsets`` of addresses and ports."""

    api_version = "v1"
    kind = "Endpoints"
    resource = "endpoints"
    model = Endpoints
    spec_fields = ("subsets",)

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        endpoints: Endpoints = loaded.instance
        subsets = doc.json("subsets", [])
        if not isinstance(subsets, list):
            raise doc.error("subsets", "expected an array")
        endpoints.subsets = subsets

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        endpoints: Endpoints = instance
        return {"subsets": list(endpoints.subsets)} if endpoints.subsets else {}


def write_service(service: Service) -> Manifest:
    """Return the Service's ``spec`` and ``status`` as kube-apiserver returns them."""
    spec: Manifest = {}
    if service.ports:
        spec["ports"] = [dict(port) for port in service.ports]
    if service.selector:
        spec["selector"] = dict(service.selector)
    if service.cluster_ip:
        spec["clusterIP"] = service.cluster_ip
        spec["clusterIPs"] = [service.cluster_ip]
    spec["type"] = service.type
    if service.external_name:
        spec["externalName"] = service.external_name
    spec["sessionAffinity"] = service.session_affinity
    if service.publish_not_ready_addresses:
        spec["publishNotReadyAddresses"] = True
    if service.type != ServiceType.EXTERNAL_NAME:
        spec["ipFamilies"] = ["IPv4"]
        spec["ipFamilyPolicy"] = "SingleStack"
        spec["internalTrafficPolicy"] = "Cluster"
    if service.type in (ServiceType.NODE_PORT, ServiceType.LOAD_BALANCER):
        spec["externalTrafficPolicy"] = "Cluster"
    return {"spec": spec, "status": {"loadBalancer": {}}}


class EndpointSliceKind(Kind):
    """``discovery.k8s.io/v1`` EndpointSlice: ``addressType``, ``endpoints``, ``ports``."""

    api_version = "discovery.k8s.io/v1"
    kind = "EndpointSlice"
    resource = "endpointslice.discovery.k8s.io"
    model = EndpointSlice
    spec_fields = ("address_type", "endpoints", "ports")

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        slice_: EndpointSlice = loaded.instance
        slice_.address_type = doc.string("addressType", required=True)
        if slice_.address_type not in ("IPv4", "IPv6", "FQDN"):
            raise doc.error(
                "addressType",
                f'Unsupported value: {slice_.address_type!r}: supported values: "FQDN", '
                '"IPv4", "IPv6"',
            )
        slice_.endpoints = doc.json("endpoints", [])
        slice_.ports = doc.json("ports", [])
        for key, value in (("endpoints", slice_.endpoints), ("ports", slice_.ports)):
            if not isinstance(value, list):
                raise doc.error(key, "expected an array")

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        slice_: EndpointSlice = instance
        body: Manifest = {"addressType": slice_.address_type, "endpoints": list(slice_.endpoints)}
        if slice_.ports:
            body["ports"] = list(slice_.ports)
        return body
