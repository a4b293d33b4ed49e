"""A Queue's ``spec.affinity``: the node groups its pods must, should or must not land on.

Volcano's nodegroup plugin reads it (``nodeGroupAffinity`` / ``nodeGroupAntiAffinity``, each
with ``requiredDuringSchedulingIgnoredDuringExecution`` and
``preferredDuringSchedulingIgnoredDuringExecution``: lists of node-group names, the values of
the node label ``volcano.sh/nodegroup-name``; the order of a preferred list matters with the
plugin's ``enablePreferredOrder``). Its CRD checks only the shape, and no webhook looks at
it, so nothing else is refused. Kept in the wire shape; empty lists are left out, as Volcano
writes them.
"""

from __future__ import annotations

from typing import Any

from apis.wire import Fields

__all__ = ["AFFINITY_KINDS", "PREFERRED", "REQUIRED", "read_affinity"]

AFFINITY_KINDS = ("nodeGroupAffinity", "nodeGroupAntiAffinity")
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def read_affinity(spec: Fields) -> dict[str, Any] | None:
    """Return ``spec.affinity`` checked for shape (None when absent)."""
    if not spec.has("affinity"):
        spec.raw("affinity")
        return None
    block = spec.obj("affinity")
    affinity: dict[str, Any] = {}
    for kind in AFFINITY_KINDS:
        if not block.has(kind):
            block.raw(kind)
            continue
        rules = block.obj(kind)
        affinity[kind] = {
            rule: names for rule in (REQUIRED, PREFERRED) if (names := rules.strings(rule))
        }
        rules.done()
    block.done()
    return affinity
