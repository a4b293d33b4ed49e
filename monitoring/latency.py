"""Latency histograms in the history: Volcano's own buckets, summed in roll-ups, read as
quantiles the way Prometheus' ``histogram_quantile`` reads them.

Why: a per-minute or per-ten-minute sample used to keep only the mean (and the slowest) of
its sessions, so p50/p95/p99 over a day or a week were quantiles of means, not of sessions.
Each sample now also counts its sessions per latency bucket, for the session (end to end),
each action and each plugin, with the bucket boundaries ``/metrics`` exports for
``volcano_e2e_scheduling_latency_milliseconds``, ``volcano_action_scheduling_latency_milliseconds``
and ``volcano_plugin_scheduling_latency_milliseconds`` (``apis.histograms.HISTOGRAMS``).
Counts add up exactly when samples merge, so a week's point holds the distribution of its
sessions to within one bucket.

Stored sparsely (a bucket number, as text, to its count; JSON keys are text): one session
fills one bucket per component, a ten-minute roll-up a handful.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping
from typing import Any

from apis.histograms import HISTOGRAMS

__all__ = [
    "BOUNDS",
    "Counts",
    "add_counts",
    "bucket_of",
    "bucket_range",
    "histogram",
    "merge_histograms",
    "quantile",
    "width_at",
]

Counts = dict[str, int]  # bucket number (text) -> sessions; bucket len(bounds) is +Inf
# Upper bounds (ms, "le") per component, exactly the buckets /metrics exports.
BOUNDS: dict[str, tuple[float, ...]] = {
    "e2e": tuple(HISTOGRAMS["volcano_e2e_scheduling_latency_milliseconds"][2]),
    "actions": tuple(HISTOGRAMS["volcano_action_scheduling_latency_milliseconds"][2]),
    "plugins": tuple(HISTOGRAMS["volcano_plugin_scheduling_latency_milliseconds"][2]),
}


def bucket_of(component: str, ms: float) -> int:
    """Return the bucket holding ``ms``: the first whose upper bound is at least ``ms``
    (Prometheus' ``le``), or ``len(bounds)`` for +Inf."""
    return bisect.bisect_left(BOUNDS[component], ms)


def bucket_range(component: str, bucket: int) -> tuple[float, float]:
    """Return the lower and upper bound of a bucket (the first starts at 0, as Prometheus
    assumes; +Inf is given the last finite bound as both)."""
    bounds = BOUNDS[component]
    if bucket >= len(bounds):
        return bounds[-1], bounds[-1]
    return (bounds[bucket - 1] if bucket > 0 else 0.0), bounds[bucket]


def histogram(
    e2e_ms: float, actions: Mapping[str, float], plugins: Mapping[str, float]
) -> dict[str, Any]:
    """Return one session's histograms: one count in one bucket per component."""
    return {
        "e2e": {str(bucket_of("e2e", e2e_ms)): 1},
        "actions": {name: {str(bucket_of("actions", ms)): 1} for name, ms in actions.items()},
        "plugins": {name: {str(bucket_of("plugins", ms)): 1} for name, ms in plugins.items()},
    }


def add_counts(into: Counts, counts: Mapping[str, int]) -> None:
    """Add ``counts`` to ``into``, bucket by bucket."""
    for bucket, n in counts.items():
        into[bucket] = into.get(bucket, 0) + n


def merge_histograms(hists: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Return the sum of several samples' histograms (counts add up exactly)."""
    out: dict[str, Any] = {"e2e": {}, "actions": {}, "plugins": {}}
    for hist in hists:
        add_counts(out["e2e"], hist["e2e"])
        for key in ("actions", "plugins"):
            for name, counts in hist[key].items():
                add_counts(out[key].setdefault(name, {}), counts)
    return out


def quantile(q: float, component: str, counts: Mapping[str, int]) -> float | None:
    """Return the ``q`` quantile (0..1) of the sessions counted in ``counts``, None if none.

    As Prometheus' ``histogram_quantile``: find the bucket where the rank ``q * total`` falls
    and interpolate linearly inside it, assuming its sessions spread evenly between its
    bounds; a rank in the +Inf bucket gives the highest finite bound.
    """
    total = sum(counts.values())
    if total <= 0:
        return None
    rank = q * total
    seen = 0
    for bucket in sorted(int(b) for b in counts):
        n = counts[str(bucket)]
        if n <= 0:
            continue
        if seen + n >= rank:
            low, high = bucket_range(component, bucket)
            return low + (high - low) * max(rank - seen, 0.0) / n
        seen += n
    return bucket_range(component, max(int(b) for b in counts))[1]  # q = 1 and rounding


def width_at(component: str, ms: float) -> float:
    """Return the width of the bucket holding ``ms`` (how close a histogram quantile is)."""
    low, high = bucket_range(component, bucket_of(component, ms))
    return high - low if not math.isclose(high, low) else 0.0
