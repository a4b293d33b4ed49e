"""numa-aware's topology hints, the kubelet topology-manager policies and the CPU choice.

Volcano's counterparts: ``plugins/numaaware/policy`` (hint merging, ``single-numa-node``,
``restricted``, ``best-effort``, ``none``) and ``provider/cpumanager`` (CPU hints from the
allocatable set, ``takeByTopology``). A hint is a set of NUMA nodes (None: any) and whether it
is preferred; the policies merge every provider's hints and admit or refuse the container.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scheduler.engine.api.numa import CpuInfo, NumaContainer, NumatopoInfo

__all__ = [
    "BEST_EFFORT",
    "NONE",
    "RESTRICTED",
    "SINGLE_NUMA_NODE",
    "Hint",
    "allocate_cpus",
    "cpu_hints",
    "generate_cpu_hints",
    "policy_predicate",
    "take_by_topology",
]

NONE = "none"
BEST_EFFORT = "best-effort"
RESTRICTED = "restricted"
SINGLE_NUMA_NODE = "single-numa-node"

_NO_INFO = CpuInfo()


@dataclass(slots=True, frozen=True)
class Hint:
    """A topology hint: the NUMA nodes (None: no preference) and whether it is preferred."""

    affinity: frozenset[int] | None
    preferred: bool


def _mask_value(nodes: Iterable[int]) -> int:
    return sum(1 << n for n in nodes)


def _narrower(a: frozenset[int], b: frozenset[int]) -> bool:
    """kubelet's ``IsNarrowerThan``: fewer NUMA nodes, or as many and a smaller bit mask."""
    if len(a) == len(b):
        return _mask_value(a) < _mask_value(b)
    return len(a) < len(b)


def generate_cpu_hints(available: frozenset[int], topo: NumatopoInfo, request: int) -> list[Hint]:
    """Return one hint per set of NUMA nodes whose available CPUs can hold ``request``.

    Preferred are those of the smallest size whose CPUs (available or not) could hold it.
    """
    numa_nodes = topo.numa_nodes()
    detail = topo.cpu_detail
    min_size = len(numa_nodes)
    hints: list[Hint] = []
    for size in range(1, len(numa_nodes) + 1):
        for combo in itertools.combinations(numa_nodes, size):
            mask = frozenset(combo)
            in_mask = sum(1 for info in detail.values() if info.numa in mask)
            if in_mask >= request and size < min_size:
                min_size = size
            matching = sum(1 for c in available if detail.get(c, _NO_INFO).numa in mask)
            if matching >= request:
                hints.append(Hint(mask, False))
    return [Hint(h.affinity, h.affinity is not None and len(h.affinity) == min_size) for h in hints]


def _reserved(topo: NumatopoInfo) -> frozenset[int]:
    """Return the CPUs ``spec.resReserved.cpu`` takes (whole CPUs, rounded up), by topology."""
    if topo.reserved_cpu_millis is None:
        return frozenset()
    count = math.ceil(topo.reserved_cpu_millis / 1000)
    taken = take_by_topology(topo, frozenset(topo.cpu_detail), count)
    return taken if taken is not None else frozenset()


def _whole_cpus(container: NumaContainer) -> int:
    """Return the container's integer CPU request (0 when absent or fractional)."""
    millis = container.cpu_millis or 0
    return millis // 1000 if millis % 1000 == 0 else 0


def cpu_hints(
    container: NumaContainer, topo: NumatopoInfo, available: frozenset[int]
) -> list[Hint] | None:
    """Return the CPU manager's hints for one container (None: no preference)."""
    if container.cpu_millis is None:
        return None
    request = _whole_cpus(container)
    if request == 0:
        return None
    return generate_cpu_hints(available - _reserved(topo), topo, request)


def _merge(numa_nodes: list[int], provider_hints: list[list[Hint]]) -> Hint:
    """Return the best merged hint: preferred first, then the narrowest affinity."""
    default = frozenset(numa_nodes)
    best = Hint(default, False)
    for permutation in itertools.product(*provider_hints):
        affinity = default
        preferred = True
        for hint in permutation:
            affinity = affinity & (default if hint.affinity is None else hint.affinity)
            preferred = preferred and hint.preferred
        if not affinity:
            continue
        if preferred and not best.preferred:
            best = Hint(affinity, preferred)
            continue
        if not preferred and best.preferred:
            continue
        assert best.affinity is not None
        if _narrower(affinity, best.affinity):
            best = Hint(affinity, preferred)
    return best


def policy_predicate(
    policy: str, numa_nodes: list[int], provider_hints: Sequence[list[Hint] | None]
) -> tuple[Hint, bool]:
    """Return the best merged hint of every provider's hints under ``policy`` and whether it
    fits. A provider answering None has no preference; one answering no hint cannot be placed.

    ``policy`` is the node's TopologyManagerPolicy; an unknown one behaves as ``none``.
    """
    if policy not in (BEST_EFFORT, RESTRICTED, SINGLE_NUMA_NODE):
        return Hint(None, False), True
    filtered: list[list[Hint]] = []
    for hints in provider_hints:
        if hints is None:
            filtered.append([Hint(None, True)])
        elif not hints:
            filtered.append([Hint(None, False)])
        else:
            filtered.append(hints)
    if policy == SINGLE_NUMA_NODE:
        filtered = [
            [h for h in group if h.preferred and (h.affinity is None or len(h.affinity) == 1)]
            for group in filtered
        ]
    best = _merge(numa_nodes, filtered)
    return best, policy == BEST_EFFORT or best.preferred


def allocate_cpus(
    container: NumaContainer, best: Hint, topo: NumatopoInfo, available: frozenset[int]
) -> frozenset[int]:
    """Return the CPUs the container gets: inside the best hint's NUMA nodes first."""
    request = _whole_cpus(container)
    free = available - _reserved(topo)
    result: frozenset[int] = frozenset()
    if best.affinity is not None:
        aligned = frozenset(
            c for c in free if c in topo.cpu_detail and topo.cpu_detail[c].numa in best.affinity
        )
        taken = take_by_topology(topo, aligned, min(request, len(aligned)))
        if taken is None:
            return frozenset()
        result = taken
    rest = take_by_topology(topo, free - result, request - len(result))
    if rest is None:
        return frozenset()
    return result | rest


def take_by_topology(
    topo: NumatopoInfo, available: frozenset[int], count: int
) -> frozenset[int] | None:
    """Return ``count`` CPUs of ``available``, whole sockets, then whole cores, then single CPUs
    (None when there are not enough), as Volcano's ``takeByTopology``."""
    full = topo.cpu_detail
    sockets_all = {i.socket for i in full.values()}
    cores_all = {(i.socket, i.core) for i in full.values()}
    details = {c: full[c] for c in available if c in full}
    result: set[int] = set()
    needed = count
    if needed < 1:
        return frozenset()
    if needed > len(details):
        return None
    per_socket = len(full) // len(sockets_all)
    per_core = len(full) // len(cores_all)

    def take(cpus: Iterable[int]) -> None:
        nonlocal needed
        cpus = set(cpus)
        result.update(cpus)
        for c in cpus:
            details.pop(c, None)
        needed -= len(cpus)

    if needed >= per_socket:
        # Volcano intersects socket ids with CPU ids here; kept as written.
        for socket in sorted({i.socket for i in details.values()} & set(details)):
            take([c for c, i in details.items() if i.socket == socket])
            if needed < 1:
                return frozenset(result)
            if needed < per_socket:
                break
    if needed >= per_core:
        sockets = sorted(
            {i.socket for i in details.values()},
            key=lambda s: (len({i.core for i in details.values() if i.socket == s}), s),
        )
        core_ids: list[int] = []
        for socket in sockets:
            # As in Volcano: the socket's core ids intersected with the free CPU ids.
            core_ids.extend(
                sorted({i.core for i in details.values() if i.socket == socket} & set(details))
            )
        for core in core_ids:
            take([c for c, i in details.items() if i.core == core])
            if needed < 1:
                return frozenset(result)
            if needed < per_core:
                break

    def core_key(core: int) -> tuple[int, int, int, int, int]:
        first = min(c for c, i in full.items() if i.core == core)
        socket = full[first].socket
        colo = sum(1 for c in result if full[c].socket == socket)
        socket_free = sum(1 for i in details.values() if i.socket == socket)
        core_free = sum(1 for i in details.values() if i.core == core)
        return (-colo, socket_free, core_free, socket, core)

    for core in sorted({i.core for i in details.values()}, key=core_key):
        for cpu in sorted(c for c, i in details.items() if i.core == core):
            if needed >= 1:
                take([cpu])
            if needed < 1:
                return frozenset(result)
    return None
