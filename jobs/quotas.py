"""The Quotas page's rows: each ResourceQuota a user may read, every resource used against hard.

What ``kubectl describe quota`` prints, for reading: the controller's ``status.used`` against
``status.hard`` (``spec.hard`` while the controller has not counted the quota yet, said so),
one bar per resource, amounts through the console's one formatter (``console.units``) in the
unit the resource counts: ``requests.cpu`` in cores, ``limits.memory`` in bytes, ``pods`` and
``count/…`` as plain counts. One query per page, whatever the number of quotas.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from console.namespaces import restrict
from console.units import amount, quantity
from core.models import ResourceQuota

__all__ = ["QuotaItem", "QuotaRow", "quota_rows", "unit_resource"]

WARN_PERCENT = 80.0  # a bar turns amber from here, red when used reaches hard


def unit_resource(name: str) -> str:
    """Return the resource whose unit quota name ``name`` counts in (for ``console.units``).

    ``requests.cpu`` and ``limits.cpu`` count cores, ``requests.nvidia.com/gpu`` GPUs, ``pods``
    pods; ``count/<kind>`` and the legacy object counts (``services``…) are plain numbers.
    """
    for prefix in ("requests.", "limits."):
        name = name.removeprefix(prefix)
    if name.startswith("count/") or name in ("services", "configmaps", "secrets"):
        return "count"
    return name


@dataclass(frozen=True, slots=True)
class QuotaItem:
    """One resource of a quota: what is used of what is allowed."""

    name: str
    used: int  # milli-units
    hard: int  # milli-units

    @property
    def percent(self) -> float:
        """Return used as a share of hard, capped at 100 (a hard of 0 used at all is full)."""
        if self.hard <= 0:
            return 100.0 if self.used > 0 else 0.0
        return round(min(100.0, 100.0 * self.used / self.hard), 1)

    @property
    def state(self) -> str:
        """Return the bar's colour class: ``ok``, ``warn`` from 80 %, ``bad`` when full."""
        if self.used >= self.hard and (self.hard > 0 or self.used > 0):
            return "bad"
        return "warn" if self.percent >= WARN_PERCENT else "ok"

    @property
    def text(self) -> str:
        """Return ``used / hard`` for reading, the unit once after hard (``3 / 8 cores``)."""
        unit = unit_resource(self.name)
        return f"{amount(self.used, unit)} / {quantity(self.hard, unit)}"


@dataclass(slots=True)
class QuotaRow:
    """A ResourceQuota with its items, by resource name."""

    quota: Any
    counted: bool  # the controller has written its status (status.hard) yet
    items: list[QuotaItem] = field(default_factory=list)

    @property
    def full(self) -> list[str]:
        """Return the resources whose use has reached hard (what refuses the next object)."""
        return [item.name for item in self.items if item.state == "bad"]


def quota_rows(user: Any, namespace: str = "") -> list[QuotaRow]:
    """Return the quotas ``user`` may read (of ``namespace`` when given), by namespace, name."""
    quotas = restrict(ResourceQuota.objects.order_by("namespace", "name"), user, namespace)
    rows = []
    for quota in quotas.only("id", "namespace", "name", "hard", "status_hard", "used"):
        hard = dict(quota.status_hard or {}) or dict(quota.hard or {})
        used = dict(quota.used or {})
        items = [QuotaItem(name, int(used.get(name, 0)), int(hard[name])) for name in sorted(hard)]
        rows.append(QuotaRow(quota, bool(quota.status_hard), items))
    return rows
