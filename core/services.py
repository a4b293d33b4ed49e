"""Objects a controller owns: create or update them, as Kubernetes' controllers do.

Any app's controller (Volcano's job controller for its svc plugin, the training operator
for a Service per replica) calls these inside its own transaction to keep an object of its
owner in shape. The object is in the owner's namespace and names the owner as its controller
in ``metadata.ownerReferences``, so it goes with the owner (garbage collection,
``kube.garbage``) and clients see whose it is. An object of that name that another owner
controls, or nobody, is left alone (``None``), as a Kubernetes controller refuses to adopt
what it did not create.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from django.db import models

from core.models import CLUSTER_IP_NONE, ConfigMap, NetworkPolicy, Service, ServiceType
from core.network import allocate_cluster_ip
from kube import registry
from kube.models import KubeObject

__all__ = [
    "controller_reference",
    "delete_owned",
    "ensure_owned_config_map",
    "ensure_owned_network_policy",
    "ensure_owned_service",
    "is_controlled_by",
]

Owned = TypeVar("Owned", bound=KubeObject)


def controller_reference(owner: KubeObject) -> dict[str, Any]:
    """Return the ``ownerReferences`` entry naming ``owner`` (a served kind) as controller."""
    entry = registry.entry_for_model(type(owner))
    assert entry is not None, f"{type(owner).__name__} is not a served kind"
    return {
        "apiVersion": entry.resource.api_version,
        "kind": entry.resource.kind,
        "name": owner.name,
        "uid": str(owner.uid),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def is_controlled_by(instance: KubeObject, owner: KubeObject) -> bool:
    """Return whether ``owner`` is ``instance``'s controller."""
    uid = str(owner.uid)
    return any(r.get("uid") == uid and r.get("controller") for r in instance.owner_references)


def _ensure(
    model: type[Owned], owner: KubeObject, name: str, values: Mapping[str, Any],
    labels: Mapping[str, str] | None,
) -> Owned | None:  # fmt: skip
    """Create ``name`` owned by ``owner`` with ``values``, or bring it to them; save if changed."""
    manager: models.Manager[Owned] = model._default_manager
    found = manager.select_for_update().filter(namespace=owner.namespace, name=name).first()
    if found is None:
        instance = model(namespace=owner.namespace, name=name)
        instance.owner_references = [controller_reference(owner)]
    elif is_controlled_by(found, owner):
        instance = found
    else:
        return None
    wanted = {**dict(values), "labels": dict(labels) if labels is not None else instance.labels}
    if found is not None and all(getattr(instance, k) == v for k, v in wanted.items()):
        return instance
    for key, value in wanted.items():
        setattr(instance, key, value)
    instance.save()
    return instance


def ensure_owned_service(
    owner: KubeObject,
    name: str,
    *,
    selector: Mapping[str, str],
    ports: Sequence[Mapping[str, Any]] = (),
    headless: bool = True,
    publish_not_ready_addresses: bool = False,
    labels: Mapping[str, str] | None = None,
) -> Service | None:
    """Create or update the Service ``name`` of ``owner``: ``selector``, ``ports``, headless.

    ``ports`` are ``ServicePort``s (``{"name": "tcp", "port": 23456}``); ``protocol`` defaults
    to TCP and ``targetPort`` to the port. A headless Service (``clusterIP: None``, the
    default) resolves to its pods; otherwise one address of the service range is allocated
    once and kept. Returns None when another owner controls a Service of that name.
    """
    normal = []
    for port in ports:
        item = {**dict(port), "protocol": port.get("protocol", "TCP")}
        item["targetPort"] = port.get("targetPort") or port["port"]
        normal.append(item)
    values: dict[str, Any] = {
        "type": ServiceType.CLUSTER_IP,
        "selector": dict(selector),
        "ports": normal,
        "publish_not_ready_addresses": publish_not_ready_addresses,
    }
    current = Service.objects.filter(namespace=owner.namespace, name=name).first()
    if headless:
        values["cluster_ip"] = CLUSTER_IP_NONE
    elif current is None or current.cluster_ip in ("", CLUSTER_IP_NONE):
        values["cluster_ip"] = allocate_cluster_ip()
    return _ensure(Service, owner, name, values, labels)


def ensure_owned_config_map(
    owner: KubeObject,
    name: str,
    data: Mapping[str, str],
    *,
    labels: Mapping[str, str] | None = None,
) -> ConfigMap | None:
    """Create or update the ConfigMap ``name`` of ``owner`` to hold exactly ``data``."""
    return _ensure(ConfigMap, owner, name, {"data": dict(data)}, labels)


def ensure_owned_network_policy(
    owner: KubeObject,
    name: str,
    spec: Mapping[str, Any],
    *,
    labels: Mapping[str, str] | None = None,
) -> NetworkPolicy | None:
    """Create or update the NetworkPolicy ``name`` of ``owner`` with ``spec`` (wire form)."""
    return _ensure(NetworkPolicy, owner, name, {"spec": dict(spec)}, labels)


def delete_owned(model: type[KubeObject], owner: KubeObject, name: str) -> bool:
    """Delete ``owner``'s object ``name`` of ``model`` if ``owner`` controls it; return whether
    one was deleted."""
    found = model._default_manager.filter(namespace=owner.namespace, name=name).first()
    if found is None or not is_controlled_by(found, owner):
        return False
    found.delete()
    return True
