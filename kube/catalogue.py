"""Every served resource as discovery, OpenAPI and Table output describe it, from the registry.

Kubernetes clients learn names from discovery: ``kubectl get vcjob`` works
because the ``jobs`` resource of ``batch.volcano.sh/v1alpha1`` declares the
short names ``vcjob`` and ``vj``. Each app registers its kinds with those names,
printer columns and categories in its ``AppConfig.ready()`` (``<app>/api/kinds.py``:
the values Volcano's CRDs declare in ``config/crd/volcano/bases`` and, for the core
kinds, the ones kube-apiserver serves); this module reads them back for the kernel.
"""

from __future__ import annotations

from kube import registry
from kube.registry import AGE, KUBE_AGE, Column, Entry
from kube.resources import Resource

__all__ = ["AGE", "KUBE_AGE", "Column", "Entry", "catalogue", "entry_for", "group_versions"]


def catalogue() -> tuple[Entry, ...]:
    """Return every served resource with its discovery names and printer columns."""
    return tuple(registry.entries())


def group_versions() -> dict[str, list[Entry]]:
    """Return the entries by ``group/version``, each group version where it was first served."""
    grouped: dict[str, list[Entry]] = {}
    for entry in registry.entries():
        grouped.setdefault(entry.group_version, []).append(entry)
    return grouped


def entry_for(resource: Resource) -> Entry | None:
    """Return the catalogue entry of ``resource`` (matched by group and plural)."""
    return registry.entry(resource.group, resource.plural)
