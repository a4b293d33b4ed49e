"""``PodDisruptionBudget`` manifests (``policy/v1``) → ``PdbInfo``.

Volcano's counterpart: the PDB informer its pdb plugin lists. Every field of the real kind is
accepted; the ones the scheduler reads are checked as the API server validates them (so a
selector it would refuse is an error naming the field, not a budget silently skipped).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apis.errors import ManifestError
from scheduler.engine.api.pdb_info import PdbInfo, PdbSelector, SelectorRequirement
from scheduler.engine.util.manifests import check_keys, mapping, parse_time

__all__ = ["read_pdb"]

_SPEC_KEYS = frozenset({"selector", "minAvailable", "maxUnavailable", "unhealthyPodEvictionPolicy"})
_STATUS_KEYS = frozenset(
    {"disruptionsAllowed", "disruptedPods", "currentHealthy", "desiredHealthy", "expectedPods",
     "observedGeneration", "conditions"}
)  # fmt: skip
_OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})


def _requirement(raw: object, field: str) -> SelectorRequirement:
    expr = mapping(raw, field)
    check_keys(expr, frozenset({"key", "operator", "values"}), field)
    key, operator = expr.get("key"), expr.get("operator")
    if not isinstance(key, str) or not key:
        raise ManifestError(f"{field}.key", "required")
    if operator not in _OPERATORS:
        raise ManifestError(
            f"{field}.operator",
            f"expected one of In, NotIn, Exists, DoesNotExist, got {operator!r}",
        )
    values = expr.get("values") or []
    if not isinstance(values, list):
        raise ManifestError(f"{field}.values", "expected a list of strings")
    if operator in ("In", "NotIn") and not values:
        raise ManifestError(f"{field}.values", f"must be specified when `operator` is {operator!r}")
    if operator in ("Exists", "DoesNotExist") and values:
        raise ManifestError(
            f"{field}.values", f"may not be specified when `operator` is {operator!r}"
        )
    return (key, str(operator), tuple(str(v) for v in values))


def _selector(raw: object, field: str) -> PdbSelector | None:
    if raw is None:
        return None
    data = mapping(raw, field)
    check_keys(data, frozenset({"matchLabels", "matchExpressions"}), field)
    labels = mapping(data.get("matchLabels"), f"{field}.matchLabels")
    expressions = data.get("matchExpressions") or []
    if not isinstance(expressions, list):
        raise ManifestError(f"{field}.matchExpressions", "expected a list")
    return PdbSelector(
        match_labels=tuple(sorted((str(k), str(v)) for k, v in labels.items())),
        expressions=tuple(
            _requirement(e, f"{field}.matchExpressions[{i}]") for i, e in enumerate(expressions)
        ),
    )


def read_label_selector(raw: object, field: str) -> PdbSelector:
    """Return a ``metav1.LabelSelector`` at ``field`` (absent reads as the empty selector)."""
    return _selector(raw, field) or PdbSelector()


def _count(value: object, field: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ManifestError(field, f"expected a non-negative integer, got {value!r}")
    return value


def read_pdb(obj: Mapping[str, Any], meta: Mapping[str, Any], field: str) -> PdbInfo:
    """Return the budget ``obj`` describes, or raise ``ManifestError`` naming the bad field."""
    check_keys(obj, frozenset({"apiVersion", "kind", "metadata", "spec", "status"}), field)
    spec = mapping(obj.get("spec"), f"{field}.spec")
    check_keys(spec, _SPEC_KEYS, f"{field}.spec")
    for key in ("minAvailable", "maxUnavailable"):
        value = spec.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | str)):
            raise ManifestError(
                f"{field}.spec.{key}", f"expected an integer or a percentage, got {value!r}"
            )
    status = mapping(obj.get("status"), f"{field}.status")
    check_keys(status, _STATUS_KEYS, f"{field}.status")
    disrupted = mapping(status.get("disruptedPods"), f"{field}.status.disruptedPods")
    for pod, when in disrupted.items():
        parse_time(when, f"{field}.status.disruptedPods.{pod}")
    for key in ("currentHealthy", "desiredHealthy", "expectedPods"):
        _count(status.get(key), f"{field}.status.{key}")
    return PdbInfo(
        name=str(meta["name"]),
        namespace=str(meta.get("namespace") or "default"),
        selector=_selector(spec.get("selector"), f"{field}.spec.selector"),
        disruptions_allowed=_count(
            status.get("disruptionsAllowed"), f"{field}.status.disruptionsAllowed"
        ),
        disrupted_pods=frozenset(str(pod) for pod in disrupted),
    )
