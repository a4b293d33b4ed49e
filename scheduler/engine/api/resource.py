"""Resources as exact vectors over every resource name, and the session's fixed resource index.

Volcano's counterpart: ``pkg/scheduler/api/resource_info.go``. Amounts are integer milli-units
(see ``quantity.py``), so comparisons are exact and Volcano's 0.1 tolerance is not needed.

``Resource`` is a small immutable value type for the code that is not hot (queue shares, job
requests, quotas). The allocate hot path works on NumPy rows instead: ``ResourceIndex`` fixes the
column of each resource name for one snapshot and converts a ``Resource`` to an ``int64`` row (and
back) cheaply, memoised per distinct request.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import numpy as np
import numpy.typing as npt

from apis.quantity import format_quantity, parse_quantity, scheduling_quantities

__all__ = ["CPU", "MEMORY", "PODS", "Resource", "ResourceIndex", "Vector", "scheduling_quantities"]

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"

Vector = npt.NDArray[np.int64]


class Resource:
    """An immutable amount of resources: ``{name: milli-units}``; a missing name is 0."""

    __slots__ = ("_best_effort", "_hash", "_key", "_q")

    def __init__(self, quantities: Mapping[str, int] | None = None) -> None:
        self._q: dict[str, int] = dict(quantities) if quantities else {}
        self._hash: int | None = None
        self._key: tuple[tuple[str, int], ...] | None = None
        self._best_effort: bool | None = None

    @classmethod
    def parse(cls, values: Mapping[str, object] | None, *, field: str) -> Resource:
        """Return the resource a manifest's map (``{cpu: "500m", memory: 1Gi}``) describes."""
        if not values:
            return cls()
        return cls({name: parse_quantity(v, field=f"{field}.{name}") for name, v in values.items()})

    @classmethod
    def of(cls, **amounts: int) -> Resource:
        """Return a resource from milli-unit keywords (``Resource.of(cpu=1000, pods=1000)``)."""
        return cls(amounts)

    # --- reading -------------------------------------------------------------------------
    def get(self, name: str) -> int:
        """Return the amount of ``name`` in milli-units (0 when absent)."""
        return self._q.get(name, 0)

    def names(self) -> Iterator[str]:
        """Return the resource names present (zeros included)."""
        return iter(self._q)

    def items(self) -> Iterable[tuple[str, int]]:
        """Return ``(name, milli)`` pairs."""
        return self._q.items()

    def as_dict(self) -> dict[str, int]:
        """Return a copy of the amounts."""
        return dict(self._q)

    def key(self) -> tuple[tuple[str, int], ...]:
        """Return a hashable canonical form (sorted, zeros dropped)."""
        key = self._key  # immutable, so computed once (ResourceIndex.vector asks per job)
        if key is None:
            items = sorted(self._q.items())
            if all(v for _, v in items):  # the usual case: no zero to drop
                key = self._key = tuple(items)
            else:
                key = self._key = tuple((k, v) for k, v in items if v)
        return key

    def is_empty(self) -> bool:
        """Return True when every amount is 0."""
        return not any(self._q.values())

    def is_best_effort(self) -> bool:
        """Return True when nothing but ``pods`` is requested (Volcano's BestEffort task)."""
        found = self._best_effort  # immutable, so computed once (asked for every task read)
        if found is None:
            found = self._best_effort = not any(v for k, v in self._q.items() if k != PODS)
        return found

    # --- arithmetic (new values) ---------------------------------------------------------
    def __add__(self, other: Resource) -> Resource:
        out = dict(self._q)
        for k, v in other._q.items():
            out[k] = out.get(k, 0) + v
        return Resource(out)

    def __sub__(self, other: Resource) -> Resource:
        out = dict(self._q)
        for k, v in other._q.items():
            out[k] = out.get(k, 0) - v
        return Resource(out)

    def scale(self, factor: float) -> Resource:
        """Return every amount multiplied by ``factor`` (rounded down)."""
        return Resource({k: int(v * factor) for k, v in self._q.items()})

    def max(self, other: Resource) -> Resource:
        """Return the per-dimension maximum."""
        out = dict(self._q)
        for k, v in other._q.items():
            out[k] = max(out.get(k, 0), v)
        return Resource(out)

    def min(self, other: Resource) -> Resource:
        """Return the per-dimension minimum over the union of names (missing = 0)."""
        keys = set(self._q) | set(other._q)
        return Resource({k: min(self.get(k), other.get(k)) for k in keys})

    def clamp_nonnegative(self) -> Resource:
        """Return the amounts floored at 0."""
        return Resource({k: max(v, 0) for k, v in self._q.items()})

    # --- comparisons -------------------------------------------------------------------
    def less_equal(self, other: Resource, *, missing_is_infinite: bool = False) -> bool:
        """Return True when every dimension of ``self`` is ≤ ``other``'s.

        A dimension absent from ``other`` counts as 0, or as unlimited with
        ``missing_is_infinite`` (Volcano's "Zero" and "Infinity" defaults). This is the node-fit
        test: it includes ``pods``.
        """
        for k, v in self._q.items():
            if k in other._q:
                if v > other._q[k]:
                    return False
            elif not missing_is_infinite and v > 0:
                return False
        return True

    def less_equal_with_dimension(self, other: Resource) -> bool:
        """Return True when ``self`` ≤ ``other`` on the dimensions ``self`` asks for.

        Only dimensions with a positive amount count and ``pods`` is skipped (Volcano's
        ``LessEqualWithDimension``): the queue-quota test. A dimension absent from ``other`` is
        unlimited.
        """
        for k, v in self._q.items():
            if v > 0 and k != PODS and k in other._q and v > other._q[k]:
                return False
        return True

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resource):
            return NotImplemented
        return self.key() == other.key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self.key())
        return self._hash

    def __repr__(self) -> str:
        return f"Resource({self})"

    def __str__(self) -> str:
        parts = [
            f"{k}: {format_quantity(max(v, 0), binary=k == MEMORY)}"
            for k, v in sorted(self._q.items())
        ]
        return "{" + ", ".join(parts) + "}"


class ResourceIndex:
    """The fixed column order of resource names for one snapshot: cpu, memory, pods, then sorted."""

    __slots__ = ("_memo", "names", "position")

    def __init__(self, names: Iterable[str]) -> None:
        extra = sorted(set(names) - {CPU, MEMORY, PODS})
        self.names: tuple[str, ...] = (CPU, MEMORY, PODS, *extra)
        self.position: dict[str, int] = {n: i for i, n in enumerate(self.names)}
        self._memo: dict[tuple[tuple[str, int], ...], Vector] = {}

    def __len__(self) -> int:
        return len(self.names)

    def vector(self, resource: Resource) -> Vector:
        """Return ``resource`` as a read-only ``int64`` row (memoised: rows are shared)."""
        key = resource.key()
        row = self._memo.get(key)
        if row is None:
            row = np.zeros(len(self.names), dtype=np.int64)
            for name, amount in key:
                pos = self.position.get(name)
                if pos is None:
                    raise KeyError(f"resource {name!r} is not in this snapshot's index")
                row[pos] = amount
            row.setflags(write=False)
            self._memo[key] = row
        return row

    def resource(self, row: Vector) -> Resource:
        """Return the ``Resource`` of an array row (zeros dropped, cpu/memory/pods kept)."""
        return Resource(
            {n: int(v) for n, v in zip(self.names, row.tolist(), strict=True) if v or n in _BASE}
        )


_BASE = frozenset({CPU, MEMORY, PODS})
