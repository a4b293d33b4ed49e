"""``meta.k8s.io/v1`` Tables: what ``kubectl get`` prints, asked for by the ``Accept`` header.

kubectl sends ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...,application/json``;
the server answers a Table whose columns are the CRD's ``additionalPrinterColumns``
after NAME (the columns its app registered, ``Entry.columns``), each row carrying the object's metadata (or the
whole object with ``includeObject=Object``). A client that did not ask gets
the plain object or list. Protobuf is never offered, so clients use JSON.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from kube.catalogue import KUBE_AGE, Column, Entry, entry_for
from kube.resources import Resource

__all__ = ["human_age", "table", "table_row", "wants_table"]


def wants_table(accept: str) -> bool:
    """Return whether the ``Accept`` header asks for a ``meta.k8s.io`` Table (v1 or v1beta1)."""
    for offer in accept.split(","):
        params = {
            key.strip().lower(): value.strip()
            for key, _, value in (part.partition("=") for part in offer.split(";")[1:])
        }
        media = offer.split(";", 1)[0].strip().lower()
        if (
            media == "application/json"
            and params.get("as") == "Table"
            and params.get("g") == "meta.k8s.io"
            and params.get("v") in ("v1", "v1beta1")
        ):
            return True
    return False


def human_age(since: dt.datetime, now: dt.datetime) -> str:
    """Return kubectl's short duration (``45s``, ``3m12s``, ``5h``, ``2d4h``)."""
    seconds = max(0, int((now - since).total_seconds()))
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if seconds < 120:
        return f"{seconds}s"
    if minutes < 10:
        return f"{minutes}m{seconds % 60}s" if seconds % 60 else f"{minutes}m"
    if hours < 3:
        return f"{minutes}m"
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if days < 8:
        return f"{days}d{hours % 24}h" if hours % 24 else f"{days}d"
    return f"{days}d"


def _path(manifest: Any, json_path: str) -> Any:
    value = manifest
    for part in json_path.strip(".").split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _computed(manifest: dict[str, Any], name: str, now: dt.datetime) -> Any:
    status = manifest.get("status") or {}
    if name == "@ready":  # kubectl's READY: containers ready / containers in the spec
        containers = (manifest.get("spec") or {}).get("containers") or []
        ready = sum(bool(c.get("ready")) for c in status.get("containerStatuses") or [])
        return f"{ready}/{len(containers) or 1}"
    if name == "@pod-status":
        return _pod_status(manifest)
    if name == "@restarts":
        return sum(int(c.get("restartCount") or 0) for c in status.get("containerStatuses") or [])
    if name == "@readiness-gates":
        return _readiness_gates(manifest)
    if name.startswith("@int-or-percent:"):
        return _int_or_percent(manifest, name.removeprefix("@int-or-percent:"))
    if name in ("@quota-request", "@quota-limit"):
        return _quota_cell(manifest, limits=name == "@quota-limit")
    if name == "@node-status":
        ready = any(
            c.get("type") == "Ready" and c.get("status") == "True"
            for c in status.get("conditions") or []
        )
        text = "Ready" if ready else "NotReady"
        if (manifest.get("spec") or {}).get("unschedulable"):
            text += ",SchedulingDisabled"
        return text
    if name == "@involved":
        involved = manifest.get("involvedObject") or {}
        return f"{str(involved.get('kind', '')).lower()}/{involved.get('name', '')}"
    if name == "@last-condition":  # the training operator's .status.conditions[-1:].type
        conditions = status.get("conditions") or []
        return conditions[-1].get("type", "") if conditions else ""
    if name.startswith("@address:"):  # a node's first address of that type
        kind = name.removeprefix("@address:")
        found = [a.get("address") for a in status.get("addresses") or [] if a.get("type") == kind]
        return found[0] if found and found[0] else "<none>"
    if name == "@data-count":  # a Secret's DATA: its keys, as kube-apiserver counts them
        return len(manifest.get("data") or {})
    if name == "@config-map-data":  # a ConfigMap's DATA: text and binary keys together
        return len(manifest.get("data") or {}) + len(manifest.get("binaryData") or {})
    if name in _NETWORK_CELLS:
        return _NETWORK_CELLS[name](manifest)
    if name == "@last-seen":
        when = manifest.get("lastTimestamp") or manifest.get("firstTimestamp")
        return _age(when, now) if when else "<unknown>"
    if name == "@first-seen":
        when = manifest.get("firstTimestamp")
        return _age(when, now) if when else "<unknown>"
    if name == "@source":  # kubectl's "component, host"
        source = manifest.get("source") or {}
        return ", ".join(
            str(part) for part in (source.get("component"), source.get("host")) if part
        )
    return "<none>"


def _service_external_ip(manifest: dict[str, Any]) -> str:
    """Return kubectl's EXTERNAL-IP of a Service: its external name, addresses, or none."""
    spec = manifest.get("spec") or {}
    kind = spec.get("type")
    if kind == "ExternalName":
        return str(spec.get("externalName") or "<none>")
    external = list(spec.get("externalIPs") or [])
    if kind == "LoadBalancer":
        ingress = ((manifest.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
        found = [str(i.get("ip") or i.get("hostname")) for i in ingress] + external
        return ",".join(found) if found else "<pending>"
    return ",".join(external) if external else "<none>"


def _service_ports(manifest: dict[str, Any]) -> str:
    """Return kubectl's PORT(S): ``80/TCP``, ``80:30080/TCP`` with a node port; ``<none>``."""
    ports = (manifest.get("spec") or {}).get("ports") or []
    shown = [
        f"{p.get('port')}:{p['nodePort']}/{p.get('protocol', 'TCP')}"
        if p.get("nodePort")
        else f"{p.get('port')}/{p.get('protocol', 'TCP')}"
        for p in ports
    ]
    return ",".join(shown) if shown else "<none>"


def _service_selector(manifest: dict[str, Any]) -> str:
    """Return a Service's SELECTOR: its pairs, sorted, as ``a=b,c=d``; ``<none>`` if none."""
    selector = (manifest.get("spec") or {}).get("selector") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or "<none>"


def _label_selector(manifest: dict[str, Any]) -> str:
    """Return a NetworkPolicy's POD-SELECTOR as ``metav1.FormatLabelSelector`` writes it."""
    selector = (manifest.get("spec") or {}).get("podSelector") or {}
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expression in selector.get("matchExpressions") or []:
        key, operator = expression.get("key", ""), expression.get("operator", "")
        values = ",".join(expression.get("values") or [])
        if operator == "In":
            parts.append(f"{key} in ({values})")
        elif operator == "NotIn":
            parts.append(f"{key} notin ({values})")
        elif operator == "Exists":
            parts.append(key)
        elif operator == "DoesNotExist":
            parts.append(f"!{key}")
    return ",".join(parts) or "<none>"


def _endpoints(manifest: dict[str, Any]) -> str:
    """Return kubectl's ENDPOINTS: up to three ``ip:port`` (bare IPs without ports), then
    ``+ N more...``; ``<none>`` when there are no subsets."""
    subsets = manifest.get("subsets") or []
    if not subsets:
        return "<none>"
    shown: list[str] = []
    count = 0
    for subset in subsets:
        addresses = [str(a.get("ip")) for a in subset.get("addresses") or []]
        ports = subset.get("ports") or []
        for port in ports or [None]:
            count += len(addresses)
            for ip in addresses:
                if len(shown) < 3:
                    shown.append(ip if port is None else f"{ip}:{port.get('port')}")
    text = ",".join(shown)
    return f"{text} + {count - 3} more..." if count > 3 else text


def _slice_ports(manifest: dict[str, Any]) -> str:
    """Return an EndpointSlice's PORTS: the port numbers, or ``<unset>`` without ports."""
    ports = [str(p.get("port")) for p in manifest.get("ports") or [] if p.get("port")]
    return ",".join(ports) if ports else "<unset>"


def _slice_endpoints(manifest: dict[str, Any]) -> str:
    """Return an EndpointSlice's ENDPOINTS: up to three addresses, then ``+ N more...``."""
    found = [str(a) for e in manifest.get("endpoints") or [] for a in e.get("addresses") or []]
    if not found:
        return "<unset>"
    text = ",".join(found[:3])
    return f"{text} + {len(found) - 3} more..." if len(found) > 3 else text


_NETWORK_CELLS = {
    "@slice-ports": _slice_ports,
    "@slice-endpoints": _slice_endpoints,
    "@service-external-ip": _service_external_ip,
    "@service-ports": _service_ports,
    "@selector": _service_selector,
    "@pod-selector": _label_selector,
    "@endpoints": _endpoints,
}


def _int_or_percent(manifest: dict[str, Any], key: str) -> str:
    """Return a PodDisruptionBudget's ``minAvailable``/``maxUnavailable`` as text, ``N/A``
    when unset (kubectl get pdb)."""
    value = (manifest.get("spec") or {}).get(key)
    return "N/A" if value is None else str(value)


def _quota_cell(manifest: dict[str, Any], limits: bool) -> str:
    """Return a ResourceQuota's REQUEST or LIMIT: ``name: used/hard`` by name, the
    ``limits.*`` names in LIMIT and the others in REQUEST (kubectl get quota)."""
    status = manifest.get("status") or {}
    hard, used = status.get("hard") or {}, status.get("used") or {}
    return ", ".join(
        f"{name}: {used.get(name, '0')}/{hard[name]}"
        for name in sorted(hard)
        if (name.split(".")[0] == "limits" and "." in name) == limits
    )


def _pod_status(manifest: dict[str, Any]) -> str:
    """Return kubectl's pod STATUS: the phase or reason, a container's waiting or terminated
    reason (``ContainerCreating``, ``CrashLoopBackOff``, ``Completed``, ``Error``),
    ``SchedulingGated`` for a pod held by scheduling gates, and ``Terminating`` for a pod
    being deleted."""
    status = manifest.get("status") or {}
    reason = str(status.get("reason") or status.get("phase") or "")
    for condition in status.get("conditions") or []:  # kubectl ≥ 1.27: a gated pod says so
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    running = False
    for container in reversed(status.get("containerStatuses") or []):
        state = container.get("state") or {}
        waiting, terminated = state.get("waiting") or {}, state.get("terminated") or {}
        if waiting.get("reason"):
            reason = str(waiting["reason"])
        elif terminated.get("reason"):
            reason = str(terminated["reason"])
        elif terminated:
            reason = f"ExitCode:{terminated.get('exitCode', 0)}"
        elif container.get("ready") and state.get("running"):
            running = True
    if reason == "Completed" and running:
        reason = "Running"
    if (manifest.get("metadata") or {}).get("deletionTimestamp"):
        reason = "Unknown" if status.get("reason") == "NodeLost" else "Terminating"
    return reason


def _readiness_gates(manifest: dict[str, Any]) -> str:
    """Return ``ready/total`` of the pod's readiness gates, ``<none>`` without any (kubelet's)."""
    gates = (manifest.get("spec") or {}).get("readinessGates") or []
    if not gates:
        return "<none>"
    true = {
        c.get("type")
        for c in (manifest.get("status") or {}).get("conditions") or []
        if c.get("status") == "True"
    }
    return f"{sum(gate.get('conditionType') in true for gate in gates)}/{len(gates)}"


def _age(value: Any, now: dt.datetime) -> str:
    try:
        return human_age(dt.datetime.fromisoformat(str(value)), now)
    except (TypeError, ValueError):
        return "<unknown>"


def _cell(manifest: dict[str, Any], column: Column, now: dt.datetime) -> Any:
    if column.json_path.startswith("@"):
        return _computed(manifest, column.json_path, now)
    value = _path(manifest, column.json_path)
    if column.type == "date":
        return _age(value, now) if value else "<unknown>"
    if column.empty is not None and value in (None, ""):
        return column.empty
    return value


def _columns(entry: Entry | None) -> tuple[Column, ...]:
    return entry.columns if entry is not None else (KUBE_AGE,)


def _name_first(entry: Entry | None) -> bool:
    return entry is None or entry.name_first


def _definitions(entry: Entry | None) -> list[dict[str, Any]]:
    name = {
        "name": "Name",
        "type": "string",
        "format": "name",
        "description": "Name must be unique within a namespace.",
        "priority": 0,
    }
    columns = _columns(entry)
    return [name] * _name_first(entry) + [
        {
            "name": column.name,
            "type": "string" if column.type == "date" else column.type,
            "format": column.format,
            "description": column.description or column.json_path,
            "priority": column.priority,
        }
        for column in columns
    ]


def table_row(
    resource: Resource, manifest: dict[str, Any], *, include: str = "Metadata"
) -> dict[str, Any]:
    """Return the Table row of one rendered object."""
    now = timezone.now()
    entry = entry_for(resource)
    cells = [manifest.get("metadata", {}).get("name", "")] * _name_first(entry)
    cells += [_cell(manifest, column, now) for column in _columns(entry)]
    row: dict[str, Any] = {"cells": cells}
    if include == "Object":
        row["object"] = manifest
    elif include != "None":
        row["object"] = {
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": manifest.get("metadata", {}),
        }
    return row


def table(
    resource: Resource,
    manifests: list[dict[str, Any]],
    *,
    list_meta: dict[str, Any] | None = None,
    include: str = "Metadata",
) -> dict[str, Any]:
    """Return a ``meta.k8s.io/v1`` Table of rendered objects."""
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": list_meta or {},
        "columnDefinitions": _definitions(entry_for(resource)),
        "rows": [table_row(resource, manifest, include=include) for manifest in manifests],
    }
