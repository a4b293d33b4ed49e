"""A task's pod template, checked as Kubernetes' core validation checks a PodTemplateSpec.

The manifest loader already refused unknown keys, wrong types and bad
quantities; here are the rules that need more than one field at a time:
container names (DNS-1123 labels, unique across containers and init
containers), images, requests not above limits, ports, and Volcano's
``topologyPolicy`` needing whole CPUs. Paths are ``spec.tasks[i].template.spec...``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from apis.errors import QuantityError
from apis.quantity import parse_quantity
from kube.admission_causes import Causes
from kube.validators import dns1123_label_error

__all__ = ["TOPOLOGY_POLICIES", "qualified_name_error", "validate_resources", "validate_template"]

TOPOLOGY_POLICIES = ("none", "best-effort", "restricted", "single-numa-node")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")


def qualified_name_error(value: str) -> str:
    """Return why ``value`` is not a Kubernetes qualified name, or ``""`` (63 characters max)."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _QUALIFIED_NAME.match(value):
        return (
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and "
            "end with an alphanumeric character"
        )
    return ""


def validate_template(
    template: Mapping[str, Any], topology_policy: str, path: str, causes: Causes
) -> None:
    """Check one task's pod template at ``path`` (``spec.tasks[i]``)."""
    spec = template.get("spec") or {}
    at = f"{path}.template.spec"
    containers = spec.get("containers") or []
    if not containers:
        causes.required(f"{at}.containers", "at least one container is required")
    names: dict[str, str] = {}
    for group in ("containers", "initContainers"):
        for index, container in enumerate(spec.get(group) or []):
            _validate_container(container, f"{at}.{group}[{index}]", names, causes)
    if topology_policy:
        if topology_policy not in TOPOLOGY_POLICIES:
            causes.not_supported(f"{path}.topologyPolicy", topology_policy, TOPOLOGY_POLICIES)
        elif topology_policy != "none":
            _require_whole_cpus(containers, f"{at}.containers", causes)


def _validate_container(
    container: Mapping[str, Any], at: str, names: dict[str, str], causes: Causes
) -> None:
    name = container.get("name", "")
    if not name:
        causes.required(f"{at}.name")
    elif error := dns1123_label_error(name):
        causes.invalid(f"{at}.name", f"{name!r}: {error}")
    elif name in names:
        causes.duplicate(f"{at}.name", f"container name {name!r} is also used by {names[name]}")
    else:
        names[name] = at
    if not container.get("image"):
        causes.required(f"{at}.image")
    for port_index, port in enumerate(container.get("ports") or []):
        number = port.get("containerPort")
        if number is None:
            causes.required(f"{at}.ports[{port_index}].containerPort")
        elif not 1 <= number <= 65535:
            causes.invalid(
                f"{at}.ports[{port_index}].containerPort", "must be between 1 and 65535, inclusive"
            )
    validate_resources(container.get("resources") or {}, f"{at}.resources", causes)


def _extended(resource: str) -> bool:
    """Kubernetes' IsExtendedResourceName: domain-qualified and not kubernetes.io's."""
    return (
        "/" in resource
        and "kubernetes.io/" not in resource
        and not resource.startswith("requests.")
    )


def validate_resources(resources: Mapping[str, Any], at: str, causes: Causes) -> None:
    """Kubernetes' container resource rules: extended resources are whole, requests ≤ limits.

    A device is not divisible (``nvidia.com/gpu: 0.5`` is refused at its key, "must be an
    integer"); GPU sharing asks for its own resources (``volcano.sh/gpu-memory``).
    """
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    for section, values in (("requests", requests), ("limits", limits)):
        if not isinstance(values, Mapping):
            continue
        for resource, value in values.items():
            if not _extended(str(resource)):
                continue
            try:
                whole = parse_quantity(value, field=resource) % 1000 == 0  # milli-units
            except QuantityError:
                continue  # the loader reports bad quantities
            if not whole:
                causes.invalid(f"{at}.{section}[{resource}]", f"{value}: must be an integer")
    if not isinstance(requests, Mapping) or not isinstance(limits, Mapping):
        return
    for resource, value in requests.items():
        if resource not in limits:
            continue
        try:
            too_much = parse_quantity(value, field=resource) > parse_quantity(
                limits[resource], field=resource
            )
        except QuantityError:
            continue  # the loader reports bad quantities
        if too_much:
            causes.invalid(
                f"{at}.requests",
                f"{value} {resource}: must be less than or equal to {resource} limit "
                f"of {limits[resource]}",
            )


def _require_whole_cpus(containers: list[Any], at: str, causes: Causes) -> None:
    """Volcano: a NUMA topology policy needs an integer CPU request in every container."""
    for index, container in enumerate(containers):
        resources = container.get("resources") or {}
        value = (resources.get("requests") or {}).get("cpu") or (resources.get("limits") or {}).get(
            "cpu"
        )
        try:
            milli = parse_quantity(value, field="cpu") if value is not None else 0
        except QuantityError:
            continue
        if milli == 0 or milli % 1000:
            causes.invalid(
                f"{at}[{index}].resources.requests.cpu",
                "the cpu request must be a whole number of CPUs when topologyPolicy is set",
            )
