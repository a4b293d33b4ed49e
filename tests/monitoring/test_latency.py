"""Latency percentiles beyond an hour come from the sessions' bucket counts, not from means."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from apis.histograms import HISTOGRAMS
from monitoring import charts
from monitoring.history import session_series
from monitoring.latency import BOUNDS, bucket_of, histogram, quantile, width_at
from monitoring.merge import merge_samples
from monitoring.models import HistorySample
from monitoring.recorder import compact_history
from tests.monitoring.helpers import sample, store

T0 = datetime(2026, 1, 1, tzinfo=UTC)  # on a ten-minute boundary
E2E = BOUNDS["e2e"]


def _session(e2e: float, allocate: float) -> dict[str, Any]:
    data = sample(queues={"a": 0.5}, e2e=e2e)
    data["latency"]["actions"] = {"allocate": allocate}
    data["latency"]["hist"] = histogram(e2e, {"allocate": allocate}, {})
    return data


def test_the_buckets_are_the_ones_metrics_exports() -> None:
    exported = HISTOGRAMS["volcano_e2e_scheduling_latency_milliseconds"][2]
    assert list(E2E) == exported
    assert bucket_of("e2e", exported[3]) == 3  # "le": a value on a bound is in that bucket
    assert bucket_of("e2e", exported[3] * 1.0001) == 4
    assert bucket_of("e2e", 10**9) == len(exported)  # +Inf


def test_merging_samples_adds_their_bucket_counts_exactly() -> None:
    samples = [(1, _session(e2e, e2e / 2)) for e2e in (3.0, 3.0, 40.0, 9000.0)]
    minute = merge_samples(samples)
    hour = merge_samples([(4, minute), (1, _session(40.0, 20.0))])

    e2e = hour["latency"]["hist"]["e2e"]
    assert e2e == {str(bucket_of("e2e", 3.0)): 2, str(bucket_of("e2e", 40.0)): 2,
                   str(len(E2E)): 1}  # fmt: skip
    assert sum(hour["latency"]["hist"]["actions"]["allocate"].values()) == 5


def test_a_merge_with_samples_recorded_before_histograms_keeps_none() -> None:
    old = sample(queues={"a": 0.5})  # no "hist": recorded before they existed
    merged = merge_samples([(1, old), (1, _session(5.0, 2.0))])
    assert "hist" not in merged["latency"]


def test_percentiles_from_known_counts_interpolate_within_a_bucket() -> None:
    counts = {"3": 4, "4": 4}  # eight sessions: four in (E2E[2], E2E[3]], four in (E2E[3], E2E[4]]

    assert quantile(0.5, "e2e", counts) == pytest.approx(E2E[3])
    assert quantile(0.25, "e2e", counts) == pytest.approx((E2E[2] + E2E[3]) / 2)
    assert quantile(0.95, "e2e", counts) == pytest.approx(E2E[3] + (E2E[4] - E2E[3]) * 3.6 / 4)
    assert quantile(0.5, "e2e", {"0": 10}) == pytest.approx(E2E[0] / 2)  # the first starts at 0
    assert quantile(0.99, "e2e", {str(len(E2E)): 3}) == E2E[-1]  # +Inf: the highest bound
    assert quantile(0.5, "e2e", {}) is None


@pytest.mark.django_db
def test_a_rolled_up_day_gives_the_raw_sessions_percentiles_within_one_bucket(
    settings: Any,
) -> None:
    settings.VOLCANO_HISTORY_TIERS = "0:120,60:86400,600:604800"
    rng = random.Random(3)
    raw: list[float] = []
    for i in range(600):  # ten minutes of 1-second sessions, long-tailed latencies
        e2e = round(rng.lognormvariate(4.0, 0.8), 3)
        raw.append(e2e)
        store(T0 + timedelta(seconds=i), _session(e2e, round(e2e / 3, 3)))
    compact_history(now=T0 + timedelta(minutes=10))
    assert HistorySample.objects.filter(resolution=60).count() == 10

    series = session_series(T0, T0 + timedelta(minutes=10), resolution=60)
    fig = charts.latency_quantile_figure(series, component="e2e")

    lines = {t.name: list(t.y) for t in fig.data}
    for minute in range(10):
        values = raw[60 * minute : 60 * (minute + 1)]
        for label, q in (("p50", 50), ("p95", 95), ("p99", 99)):
            # the session at that rank (Prometheus' rank lands in that session's bucket)
            exact = float(np.percentile(values, q, method="inverted_cdf"))
            assert abs(lines[f"session {label}"][minute] - exact) <= width_at("e2e", exact)
    # Not the quantile of the minutes' means: those hide the tail.
    means = [float(np.mean(raw[60 * m : 60 * (m + 1)])) for m in range(10)]
    assert max(lines["session p99"]) > max(means)
    assert "Volcano's latency buckets" in fig.layout.title.subtitle.text


@pytest.mark.django_db
def test_the_histogram_of_a_day_counts_every_session_in_volcanos_buckets(settings: Any) -> None:
    settings.VOLCANO_HISTORY_TIERS = "0:120,60:86400,600:604800"
    for i in range(180):
        store(T0 + timedelta(seconds=i), _session(3.0 if i % 3 else 400.0, 1.0))
    compact_history(now=T0 + timedelta(minutes=3))

    series = session_series(T0, T0 + timedelta(minutes=3), resolution=60)
    fig = charts.latency_histogram_figure(series)

    session = next(t for t in fig.data if t.name == "session")
    assert sum(session.y) == 180
    assert session.y[bucket_of("e2e", 3.0)] == 120
    assert session.y[bucket_of("e2e", 400.0)] == 60


def test_a_window_of_points_recorded_before_histograms_keeps_the_quantile_of_means() -> None:
    from monitoring.history import SessionSeries

    times = [f"2026-01-01T00:{m:02d}:00+00:00" for m in range(120)]
    means: list[float | None] = [float(m % 10) + 1 for m in range(120)]
    series = SessionSeries(resolution=60, times=times, e2e_ms=means, e2e_max_ms=means)
    series.histograms = [None] * 60 + [{"e2e": {"10": 60}, "actions": {}, "plugins": {}}] * 60

    p50 = next(t for t in charts.latency_quantile_figure(series, component="e2e").data
               if t.name == "session p50")  # fmt: skip

    assert p50.y[0] == pytest.approx(1.5)  # windows of two minutes' means: 1 and 2
    low, high = E2E[9], E2E[10]
    assert p50.y[-1] == pytest.approx(low + (high - low) * 0.5, abs=0.001)  # from the counts
