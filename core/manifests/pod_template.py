"""Pod templates and pod specs: checked where we rely on them, kept verbatim otherwise.

A task's template is stored as written (so a dump gives back the user's text),
but the parts the scheduler reads are checked here with their field paths:
every key of the PodSpec and of each container must be a Kubernetes field,
names and images are strings, and every resource request and limit is a valid
quantity. ``pod_requests`` turns a checked spec into canonical milli-units.
"""

from __future__ import annotations

from typing import Any

from apis.quantity import parse_quantity
from apis.wire import Fields, plain_json

__all__ = ["pod_limits", "pod_requests", "read_pod_spec", "read_pod_template"]

POD_SPEC_FIELDS = frozenset(
    [
        "activeDeadlineSeconds",
        "affinity",
        "automountServiceAccountToken",
        "containers",
        "dnsConfig",
        "dnsPolicy",
        "enableServiceLinks",
        "ephemeralContainers",
        "hostAliases",
        "hostIPC",
        "hostNetwork",
        "hostPID",
        "hostUsers",
        "hostname",
        "hostnameOverride",
        "imagePullSecrets",
        "initContainers",
        "nodeName",
        "nodeSelector",
        "os",
        "overhead",
        "preemptionPolicy",
        "priority",
        "priorityClassName",
        "readinessGates",
        "resourceClaims",
        "resources",
        "restartPolicy",
        "runtimeClassName",
        "schedulerName",
        "schedulingGates",
        "securityContext",
        "serviceAccount",
        "serviceAccountName",
        "setHostnameAsFQDN",
        "shareProcessNamespace",
        "subdomain",
        "terminationGracePeriodSeconds",
        "tolerations",
        "topologySpreadConstraints",
        "volumes",
    ]
)
CONTAINER_FIELDS = frozenset(
    [
        "args",
        "command",
        "env",
        "envFrom",
        "image",
        "imagePullPolicy",
        "lifecycle",
        "livenessProbe",
        "name",
        "ports",
        "readinessProbe",
        "resizePolicy",
        "resources",
        "restartPolicy",
        "restartPolicyRules",
        "securityContext",
        "startupProbe",
        "stdin",
        "stdinOnce",
        "terminationMessagePath",
        "terminationMessagePolicy",
        "tty",
        "volumeDevices",
        "volumeMounts",
        "workingDir",
    ]
)
TEMPLATE_METADATA_FIELDS = frozenset(["name", "namespace", "labels", "annotations", "generateName"])
RESTART_POLICIES = ("Always", "OnFailure", "Never")


def read_pod_template(template: Fields) -> dict[str, Any]:
    """Return a PodTemplateSpec (``metadata`` and ``spec``) checked and as plain JSON."""
    metadata = template.obj("metadata")
    for key in TEMPLATE_METADATA_FIELDS:
        if key in ("labels", "annotations"):
            metadata.string_map(key)
        else:
            metadata.string(key)
    metadata.done()
    read_pod_spec(template.obj("spec"))
    template.done()
    return plain_json(template.data, template.path)


def read_pod_spec(spec: Fields) -> dict[str, Any]:
    """Check a PodSpec (keys, containers, quantities) and return it as plain JSON."""
    for key in spec.names():
        if key in POD_SPEC_FIELDS:
            spec.raw(key)
    containers = list(spec.objects("containers"))
    if not containers:
        raise spec.error("containers", "required value: at least one container")
    for container in [*containers, *spec.objects("initContainers")]:
        _read_container(container)
    restart = spec.string("restartPolicy", "Always")
    if restart not in RESTART_POLICIES:
        raise spec.error(
            "restartPolicy", f"unsupported value {restart!r} (Always, OnFailure, Never)"
        )
    spec.string_map("nodeSelector")
    for key in ("schedulerName", "priorityClassName", "nodeName", "serviceAccountName"):
        spec.string(key)
    spec.optional_integer("priority")
    spec.optional_integer("terminationGracePeriodSeconds", minimum=0)
    spec.optional_integer("activeDeadlineSeconds", minimum=1)
    spec.boolean("hostNetwork", False)
    for toleration in spec.objects("tolerations"):
        for key in ("key", "operator", "value", "effect"):
            toleration.string(key)
        toleration.optional_integer("tolerationSeconds")
        toleration.done()
    spec.array("volumes")
    spec.done()
    return plain_json(spec.data, spec.path)


def _read_container(container: Fields) -> None:
    """Check one container's keys, name, image, command, args and resources."""
    for key in container.names():
        if key in CONTAINER_FIELDS:
            container.raw(key)
    container.string("name", required=True)
    container.string("image")
    container.strings("command")
    container.strings("args")
    container.string("imagePullPolicy")
    for port in container.objects("ports"):
        port.optional_integer("containerPort", minimum=1)
        port.ignore("name", "protocol", "hostPort", "hostIP")
        port.done()
    resources = container.obj("resources")
    resources.resources("requests")
    resources.resources("limits")
    resources.ignore("claims")
    resources.done()
    container.done()


def pod_requests(spec: dict[str, Any]) -> dict[str, int]:
    """Return what a pod with ``spec`` requests, in milli-units per resource.

    Kubernetes' rule: the sum over containers (a container's request defaults to
    its limit), and at least the largest single init container's request.
    """
    total: dict[str, int] = {}
    for container in spec.get("containers", []):
        for name, milli in _container_requests(container).items():
            total[name] = total.get(name, 0) + milli
    for container in spec.get("initContainers", []):
        for name, milli in _container_requests(container).items():
            total[name] = max(total.get(name, 0), milli)
    return total


def pod_limits(spec: dict[str, Any]) -> dict[str, int]:
    """Return a pod's limits in milli-units per resource (Kubernetes' ``PodLimits``).

    The sum over containers of the limits they set, and at least the largest single init
    container's limit; a resource no container limits is absent.
    """
    total: dict[str, int] = {}
    for container in spec.get("containers", []):
        for name, milli in _container_limits(container).items():
            total[name] = total.get(name, 0) + milli
    for container in spec.get("initContainers", []):
        for name, milli in _container_limits(container).items():
            total[name] = max(total.get(name, 0), milli)
    return total


def _container_limits(container: dict[str, Any]) -> dict[str, int]:
    limits = (container.get("resources") or {}).get("limits") or {}
    return {name: parse_quantity(value, field=name) for name, value in limits.items()}


def _container_requests(container: dict[str, Any]) -> dict[str, int]:
    resources = container.get("resources") or {}
    merged = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    return {name: parse_quantity(value, field=name) for name, value in merged.items()}
