"""ResourceQuota manifests (v1): ``spec.hard`` validated as kube-apiserver does.

Each name in ``hard`` is a standard quota resource (``pods``, ``cpu``, ``requests.memory``,
``limits.cpu``, ``services``...) or a qualified one (``requests.nvidia.com/gpu``,
``count/services``, ``count/jobs.batch.volcano.sh``); each value is a quantity, at least 0,
and whole for the resources that count objects. Quantities come back canonical
(``4000m`` is ``4``, ``1024Mi`` is ``1Gi``), as Kubernetes serialises them.

Deviation: quota scopes (``spec.scopes``, ``spec.scopeSelector``) are refused with a message
that says so, rather than stored and ignored: every quota here counts every pod.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from apis.errors import ManifestError, QuantityError
from apis.quantity import parse_quantity
from apis.wire import Fields, Manifest, format_resources
from core.models import ResourceQuota
from kube.manifest_kinds import Kind, Loaded

__all__ = ["OBJECT_COUNTS", "STANDARD_QUOTA_RESOURCES", "ResourceQuotaKind"]

# The quota names that count objects of the namespace (Kubernetes' legacy object counts).
OBJECT_COUNTS = (
    "pods",
    "services",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
)
STANDARD_QUOTA_RESOURCES = frozenset(
    {
        *OBJECT_COUNTS,
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.storage",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
    }
)
_HUGEPAGES = "requests.hugepages-"


def _is_count(name: str) -> bool:
    return name in OBJECT_COUNTS or name.startswith("count/")


def read_hard(fields: Fields, key: str) -> dict[str, int]:
    """Return the resource list at ``key`` (``hard``, ``used``) checked as quota names."""
    values = fields.obj(key)
    result: dict[str, int] = {}
    for name in values.names():
        raw = values.raw(name)
        at = f"{values.path}[{name}]"
        standard = name in STANDARD_QUOTA_RESOURCES or name.startswith(_HUGEPAGES)
        if "/" not in name and not standard:
            raise ManifestError(
                at, f'Invalid value: "{name}": must be a standard resource for quota'
            )
        shown = json.dumps(raw) if isinstance(raw, str | int | float) else repr(raw)
        if isinstance(raw, str) and raw.startswith("-") and raw.strip("-0.") != "":
            raise ManifestError(at, f"Invalid value: {shown}: must be greater than or equal to 0")
        try:
            milli = parse_quantity(raw, field=at)
        except QuantityError as exc:
            raise ManifestError(exc.field, f"Invalid value: {shown}: {exc.message}") from exc
        if _is_count(name) and milli % 1000:
            raise ManifestError(at, f"Invalid value: {shown}: must be an integer")
        result[name] = milli
    return result


class ResourceQuotaKind(Kind):
    """``v1`` ResourceQuota."""

    api_version = "v1"
    kind = "ResourceQuota"
    resource = "resourcequota"
    model = ResourceQuota
    spec_fields = ("hard",)
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name"}

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        quota: ResourceQuota = loaded.instance
        spec = doc.obj("spec")
        for key in ("scopes", "scopeSelector"):
            if spec.has(key):
                raise spec.error(
                    key, "Unsupported value: quota scopes are not supported by this server"
                )
        quota.hard = read_hard(spec, "hard")
        spec.done()
        status = doc.obj("status")
        quota.status_hard = read_hard(status, "hard")
        quota.used = read_hard(status, "used")
        status.done()

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        quota: ResourceQuota = instance
        manifest: Manifest = {"spec": {"hard": format_resources(quota.hard)}}
        status: Manifest = {}
        if quota.status_hard:
            status["hard"] = format_resources(quota.status_hard)
        if quota.used:
            status["used"] = format_resources(quota.used)
        manifest["status"] = status
        return manifest
