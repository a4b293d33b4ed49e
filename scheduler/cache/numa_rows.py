"""Numatopology rows → the engine's ``NumatopoInfo``, for the numa-aware plugin.

Volcano's cache watches ``nodeinfo.volcano.sh`` Numatopologies and keeps each on its node's
``NodeInfo``; here the snapshot reads them once per session (``snapshot._read``). A row the
engine cannot read (written by hand through the admin) is left out, and its node then has no
NUMA facts, as Volcano's cache skips an object it cannot convert; the warning names the field.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from apis.errors import ManifestError
from kubelet.manifests import NumatopologyKind
from kubelet.models import Numatopology
from scheduler.engine.api.numa import NumatopoInfo
from scheduler.engine.util.numa_manifest import read_numatopology

__all__ = ["read_numatopologies"]

logger = logging.getLogger(__name__)
_KIND = NumatopologyKind()


def read_numatopologies(nodes: Collection[str]) -> dict[str, NumatopoInfo]:
    """Return node name → its Numatopology, for the named nodes that have one."""
    out: dict[str, NumatopoInfo] = {}
    if not nodes:
        return out
    # Every row, filtered here: there is at most one per node, and an IN list of 10,000 node
    # names costs more than the few rows a cluster without NUMA knobs has (none).
    for row in Numatopology.objects.all():
        if row.name not in nodes:
            continue
        manifest = {
            "apiVersion": _KIND.api_version,
            "kind": _KIND.kind,
            "metadata": {"name": row.name},
            **_KIND.write(row, None),
        }
        try:
            out[row.name] = read_numatopology(manifest, manifest["metadata"], row.name)
        except ManifestError as exc:
            logger.warning("Numatopology %s left out: %s", row.name, exc)
    return out
