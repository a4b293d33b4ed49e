"""``labelSelector`` and ``fieldSelector``: parsed once, applied as a query (lists) or a test (watches).

Label requirements follow Kubernetes: ``k=v``, ``k==v``, ``k!=v`` (also true
when the label is missing), ``k in (a,b)``, ``k notin (a,b)``, ``k`` (exists)
and ``!k``. Field selectors support ``=``, ``==`` and ``!=`` on the fields a
resource declares (``metadata.name``, ``spec.queue``, ``status.state.phase``...).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from kube.status import KubeError

__all__ = ["Requirement", "parse_field_selector", "parse_label_selector"]

_KEY = r"[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?"
_VALUE = r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?"
_SET = re.compile(rf"^\s*({_KEY})\s+(in|notin)\s+\(([^)]*)\)\s*$")
_EQUALITY = re.compile(rf"^\s*({_KEY})\s*(==|=|!=)\s*({_VALUE})\s*$")
_EXISTS = re.compile(rf"^\s*(!?)\s*({_KEY})\s*$")


@dataclass(frozen=True)
class Requirement:
    """One term of a selector: ``key operator values``."""

    key: str
    operator: str  # "in", "notin", "exists", "!exists" ("=" is "in" with one value)
    values: tuple[str, ...] = ()

    def label_q(self) -> Q:
        """Return this label requirement as a filter on the ``labels`` JSON column."""
        has_key = Q(labels__has_key=self.key)
        if self.operator == "exists":
            return has_key
        if self.operator == "!exists":
            return ~has_key
        matches = Q()
        for value in self.values:
            matches |= Q(**{f"labels__{self.key}__exact": value})
        if self.operator == "in":
            return has_key & matches
        return ~has_key | ~(has_key & matches)

    def field_q(self, column: str) -> Q:
        """Return this field requirement as a filter on ``column``."""
        matches = Q(**{f"{column}__in": self.values})
        return matches if self.operator == "in" else ~matches

    def test(self, value: str | None) -> bool:
        """Return whether ``value`` (``None`` = absent) satisfies this requirement."""
        if self.operator == "exists":
            return value is not None
        if self.operator == "!exists":
            return value is None
        inside = value is not None and value in self.values
        return inside if self.operator == "in" else not inside

    def test_labels(self, labels: Mapping[str, str]) -> bool:
        """Return whether ``labels`` satisfy this requirement."""
        return self.test(labels.get(self.key))


def _split_terms(text: str) -> list[str]:
    """Split on commas that are not inside ``( )``."""
    terms, depth, current = [], 0, ""
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            terms.append(current)
            current = ""
        else:
            current += char
    terms.append(current)
    return [term for term in terms if term.strip()]


def parse_label_selector(text: str | None) -> list[Requirement]:
    """Return the requirements of ``labelSelector``; ``KubeError`` 400 when malformed."""
    requirements = []
    for term in _split_terms(text or ""):
        if match := _SET.match(term):
            values = tuple(v.strip() for v in match.group(4).split(",") if v.strip())
            requirements.append(Requirement(match.group(1), match.group(3), values))
        elif match := _EQUALITY.match(term):
            operator = "notin" if match.group(3) == "!=" else "in"
            requirements.append(Requirement(match.group(1), operator, (match.group(4),)))
        elif match := _EXISTS.match(term):
            operator = "!exists" if match.group(1) else "exists"
            requirements.append(Requirement(match.group(2), operator))
        else:
            raise KubeError(400, f"unable to parse requirement: {term.strip()!r}")
    return requirements


def parse_field_selector(text: str | None, supported: Mapping[str, str]) -> list[Requirement]:
    """Return the requirements of ``fieldSelector`` on the ``supported`` wire fields."""
    requirements = []
    for term in _split_terms(text or ""):
        match = re.match(r"^\s*([A-Za-z.]+)\s*(==|=|!=)\s*(.*?)\s*$", term)
        if match is None:
            raise KubeError(400, f"invalid selector: {term.strip()!r}; expected field=value")
        key, operator, value = match.groups()
        if key not in supported:
            known = ", ".join(sorted(supported))
            raise KubeError(400, f'field label not supported: "{key}" (supported: {known})')
        requirements.append(Requirement(key, "notin" if operator == "!=" else "in", (value,)))
    return requirements


def manifest_value(manifest: Mapping[str, Any], path: str) -> str | None:
    """Return the string at dotted ``path`` of ``manifest`` (``None`` when absent)."""
    value: Any = manifest
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return ""
        value = value[part]
    return None if value is None else str(value)
