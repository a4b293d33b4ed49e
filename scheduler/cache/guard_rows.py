"""PodDisruptionBudgets and ResourceQuotas as the pdb and resourcequota plugins read them.

Part of the snapshot's read (``snapshot.py``), in the same read transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.models import PodDisruptionBudget, ResourceQuota
from scheduler.engine.api.pdb_info import PdbInfo, PdbSelector
from scheduler.engine.api.quota_info import QuotaInfo
from scheduler.engine.api.resource import Resource

__all__ = ["read_pdbs", "read_quotas"]


def _milli(amounts: Mapping[str, int] | None) -> Resource:
    return Resource(amounts) if amounts else Resource()


def read_pdbs() -> list[PdbInfo]:
    """PodDisruptionBudgets as the pdb plugin reads them: selector and the controller's status.

    ``spec.selector`` absent is no selector and ``{}`` an empty one: both select no pod in the
    plugin (Kubernetes reads ``{}`` as every pod; Volcano's plugin skips it). The snapshot
    leaves the ``volcano.sh/task-index`` label out of pod labels (``_labels_but_index``), so a
    budget selecting on that label covers no pod here.
    """
    budgets: list[PdbInfo] = []
    for ns, name, spec, allowed, disrupted in PodDisruptionBudget.objects.values_list(
        "namespace", "name", "spec", "disruptions_allowed", "disrupted_pods"
    ):
        raw = (spec or {}).get("selector")
        budgets.append(
            PdbInfo(
                name=name,
                namespace=ns,
                selector=None if raw is None else _label_selector(raw),
                disruptions_allowed=int(allowed),
                disrupted_pods=frozenset(str(pod) for pod in disrupted or {}),
            )
        )
    return budgets


def _label_selector(raw: Mapping[str, Any]) -> PdbSelector:
    """A stored ``metav1.LabelSelector`` (admission validated it) as the plugin matches it."""
    return PdbSelector(
        match_labels=tuple(sorted((str(k), str(v)) for k, v in (raw.get("matchLabels") or {}).items())),
        expressions=tuple(
            (str(e.get("key", "")), str(e.get("operator", "")),
             tuple(str(v) for v in e.get("values") or ()))
            for e in raw.get("matchExpressions") or ()
        ),
    )  # fmt: skip


def read_quotas() -> list[QuotaInfo]:
    """ResourceQuotas' status (``status.hard``, ``status.used``; both stored in milli-units)."""
    return [
        QuotaInfo(
            name=name,
            namespace=ns,
            hard=_milli(hard),
            used=_milli(used),
        )
        for ns, name, hard, used in ResourceQuota.objects.values_list(
            "namespace", "name", "status_hard", "used"
        )
    ]
