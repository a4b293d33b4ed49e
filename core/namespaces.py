"""Namespaces as kube-apiserver keeps them: ``/api/v1/namespaces``.

A namespaced object can only be created in a namespace that exists and is Active (404
NotFound otherwise, 403 while it terminates): ``namespace_lifecycle``, the admission plugin
core registers (Kubernetes' NamespaceLifecycle). Deleting a namespace marks it Terminating,
deletes every object in it (every namespaced kind the apps registered, owners first: jobs take
their pods and PodGroups with them) and then the namespace itself, in one transaction: the
answer shows it Terminating, as kube-apiserver's does, and a following get finds it gone.
``default`` may not be deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from apis.wire import Fields, Manifest
from core.models import Namespace, NamespacePhase
from kube import registry
from kube.finalizers import delete_or_finalize
from kube.manifest_kinds import Kind, Loaded
from kube.resources import Resource
from kube.status import KubeError

__all__ = [
    "NAMESPACES",
    "PROTECTED",
    "NamespaceKind",
    "bundle_namespaces",
    "check_namespace",
    "ensure_namespaces",
    "namespace_delete",
    "namespace_finish",
    "namespace_lifecycle",
    "namespace_released",
    "namespace_terminate",
]

PROTECTED = frozenset({"default", "kube-system", "kube-public"})


class NamespaceKind(Kind):
    """``v1`` Namespace: a name, labels, annotations; status.phase Active or Terminating."""

    api_version = "v1"
    kind = "Namespace"
    resource = "namespace"
    model = Namespace
    namespaced = False
    name_is_label = True
    spec_fields = ()

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        spec = doc.obj("spec")
        for item in spec.array("finalizers"):
            if not isinstance(item, str):
                raise spec.error("finalizers", "expected an array of strings")
        spec.done()
        status = doc.obj("status")
        status.string("phase")  # the server's: a new namespace is Active
        status.ignore("conditions")
        status.done()

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        namespace: Namespace = instance
        return {"spec": {"finalizers": ["kubernetes"]}, "status": {"phase": namespace.phase}}


NAMESPACES = Resource(
    manifest=NamespaceKind(),
    plural="namespaces",
    group="",
    version="v1",
    access="namespaces",
    field_selectors={"metadata.name": "name", "status.phase": "phase"},
    example={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}},
)


def check_namespace(name: str) -> None:
    """Refuse creating in ``name`` unless it exists and is Active (404 / 403 ``Status``)."""
    phase = Namespace.objects.filter(name=name).values_list("phase", flat=True).first()
    if phase is None:
        raise KubeError(404, f'namespaces "{name}" not found', kind="namespaces", name=name)
    if phase != NamespacePhase.ACTIVE:
        raise KubeError(
            403,
            f"unable to create new content in namespace {name} because it is being terminated",
            kind="namespaces", name=name,
        )  # fmt: skip


def namespace_lifecycle(resource: Resource, manifest: Mapping[str, Any], operation: str) -> None:
    """Admission plugin (NamespaceLifecycle): create namespaced objects only in live namespaces."""
    if operation != "CREATE" or not resource.namespaced:
        return
    check_namespace(str(manifest.get("metadata", {}).get("namespace") or "default"))


def ensure_namespaces(names: Iterable[str]) -> list[str]:
    """Create the namespaces of ``names`` that do not exist yet; return those created.

    For ``manage.py apply`` and the demo, which bring manifests naming their namespaces.
    """
    wanted = {n for n in names if n}
    existing = set(Namespace.objects.filter(name__in=wanted).values_list("name", flat=True))
    created = sorted(wanted - existing)
    for name in created:
        Namespace.objects.create(name=name)
    return created


def bundle_namespaces(objects: Sequence[Loaded]) -> list[str]:
    """Apply hook: create the namespaces a bundle's objects live in; return kubectl's lines.

    As ``kubectl apply`` of a bundle that includes its namespaces: each object's namespace
    exists before the object.
    """
    names = ensure_namespaces(
        loaded.instance.namespace for loaded in objects if loaded.kind.namespaced
    )
    return [f"namespace/{name} created" for name in names]


def _namespaced_models() -> list[Any]:
    # Every namespaced kind served, in apply order: jobs before their pods and PodGroups
    # (which go with them), then what is left.
    return [entry.model for entry in registry.namespaced_entries()]


def namespace_terminate(namespace: Namespace) -> Namespace:
    """Mark ``namespace`` Terminating, delete everything in it, then the namespace itself."""
    if namespace.name in PROTECTED:
        raise KubeError(
            403, f'namespaces "{namespace.name}" is forbidden: this namespace may not be deleted',
            kind="namespaces", name=namespace.name,
        )  # fmt: skip
    with transaction.atomic():
        namespace.phase = NamespacePhase.TERMINATING
        if namespace.deletion_timestamp is None:
            namespace.deletion_timestamp = timezone.now().replace(microsecond=0)
        namespace.save()
        for model in _namespaced_models():
            for obj in model._default_manager.filter(namespace=namespace.name).iterator():
                # One by one: each is a change event its watchers see. Objects holding
                # finalizers stay Terminating, and the namespace with them.
                delete_or_finalize(obj)
        namespace_finish(namespace)
    return namespace


def namespace_finish(namespace: Namespace) -> bool:
    """Delete a Terminating ``namespace`` once it is empty and holds no finalizer of its own.

    Called when it is deleted and whenever an object held in it by finalizers finally goes.
    """
    if namespace.phase != NamespacePhase.TERMINATING or namespace.finalizers:
        return False
    for model in _namespaced_models():
        if model._default_manager.filter(namespace=namespace.name).exists():
            return False
    Namespace.objects.filter(pk=namespace.pk).delete()
    return True


def namespace_delete(namespace: Namespace, *, grace_period: int | None) -> bool:
    """``Entry.delete`` of Namespace: terminate it (the answer shows it Terminating)."""
    namespace_terminate(namespace)
    return True


def namespace_released(instance: Any) -> None:
    """Release hook: once the last object held in a terminating namespace goes, it finishes."""
    if name := getattr(instance, "namespace", ""):
        terminating = Namespace.objects.filter(name=name, phase=NamespacePhase.TERMINATING)
        if (held := terminating.first()) is not None:
            namespace_finish(held)
