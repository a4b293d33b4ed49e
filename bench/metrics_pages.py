"""Metrics pages benchmark: ``python bench/metrics_pages.py`` (``--runs 7``).

Budget: with a week of recorded history at 1-second sessions, 100 queues and 10,000 running
jobs, each chart's data answers in at most 200 ms at p95, for every range of the range
selector. Builds that week at the default tiers in a fresh SQLite file (3,600 per-session
rows for the last hour, 1,440 per-minute rows for the day, 1,008 per-ten-minute rows for the
week, plus the not-yet-rolled-up tail: the last two minutes per session and the last ten
minutes per minute), with ``bench/history.py``'s sample of that size (the top 50 jobs of
10,000 vary, so a week holds many job series). Then, for each chart of ``monitoring.panels``
and each range (15m, 1h, 6h, 24h, 7d), times its data function with a fresh reader (nothing
shared between charts) plus ``figure_data`` (the JSON the page and the data endpoint send),
and prints p50 and p95 in ms, of wall time and of this process' CPU time (on a shared
machine the wall time also counts waiting for a CPU; the load average is printed). Exits 1 when a p95 is over the budget. Not run by ``make test``.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import setup_django  # noqa: E402
from bench.history import _big_sample  # noqa: E402

BUDGET_MS = 200.0
RANGES = ("15m", "1h", "6h", "24h", "7d")


def _variants(count: int) -> list[dict[str, Any]]:
    """Return ``count`` samples of the big size whose top jobs and latencies differ."""
    base = _big_sample()
    rng = random.Random(11)
    out = []
    for v in range(count):
        data = copy.deepcopy(base)
        data["drf"]["top"] = [[f"ns/job-{rng.randrange(10_000)}", f"queue-{rng.randrange(100):03d}",
                               round(rng.random(), 6), rng.choice(("cpu", "memory"))]
                              for _ in range(50)]  # fmt: skip
        data["latency"]["e2e"] = data["latency"]["e2e_max"] = 150.0 + 20 * v
        data["counts"]["evictions_by_action"] = {"preempt": v % 3, "reclaim": v % 2}
        out.append(data)
    return out


def _build_week(now: datetime) -> int:
    """Store a week of history ending at ``now``; return the number of rows."""
    from monitoring.merge import merge_samples
    from monitoring.models import HistorySample, encode

    raw = [encode(d) for d in _variants(10)]
    merged = [encode(merge_samples([(1, d)])) for d in _variants(10)]
    rows: list[HistorySample] = []

    def add(count: int, step: int, resolution: int, end: datetime, blobs: list[bytes]) -> None:
        base = end - timedelta(seconds=end.timestamp() % max(step, 1))
        for i in range(count):
            at = base - timedelta(seconds=step * (i + 1))
            rows.append(HistorySample(at=at, resolution=resolution, samples=max(resolution, 1),
                                      data=blobs[i % len(blobs)]))  # fmt: skip

    minute_end = now - timedelta(minutes=2)  # rolled up to two minutes ago
    ten_end = now - timedelta(minutes=10)
    add(3600, 1, 0, now, raw)
    add(1440, 60, 60, minute_end, merged)
    add(1008, 600, 600, ten_end, merged)
    HistorySample.objects.bulk_create(rows, batch_size=500)
    return len(rows)


def _time_panels(
    runs: int,
) -> tuple[dict[tuple[str, str], list[float]], dict[tuple[str, str], list[float]]]:
    from django.http import QueryDict
    from django.utils import timezone

    from console.charts import figure_data
    from monitoring.panels import PANELS, Reader
    from monitoring.ranges import parse_query
    from monitoring.sources import current_source

    walls: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    for name in RANGES:
        for panel in PANELS:
            for _ in range(runs):
                query = parse_query(QueryDict(f"range={name}&section={panel.section}"),
                                    now=timezone.now())  # fmt: skip
                started, cpu = time.perf_counter(), time.process_time()
                figure_data(panel.build(Reader(current_source(), query)))
                walls.setdefault((panel.name, name), []).append(time.perf_counter() - started)
                cpus.setdefault((panel.name, name), []).append(time.process_time() - cpu)
    return walls, cpus


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    """Build the week, time every chart for every range, print p50/p95 and the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-freeze", action="store_true",
                        help="leave the start-up heap to the garbage collector (servers before i18perf)")  # fmt: skip
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as data_dir:
        setup_django(data_dir)
        from django.utils import timezone

        started = time.perf_counter()
        count = _build_week(timezone.now())
        print(f"a week of history: {count:,} rows built in {time.perf_counter() - started:.1f} s")
        if not args.no_freeze:  # as the server does once set up (volcano_site/asgi.py)
            from volcano_site.startup import freeze_startup_heap

            freeze_startup_heap()
        walls, cpus = _time_panels(args.runs)
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} CPUs: on a shared machine the wall "
          "time includes waiting for a CPU; the CPU time is this process' own work")  # fmt: skip
    worst = {"wall": 0.0, "cpu": 0.0}
    for label, table in (("wall", walls), ("cpu", cpus)):
        print(f"\n{label + ' ms':<18}" + "".join(f"{r:>16}" for r in RANGES) + "   (p50 / p95)")
        for panel_name in dict.fromkeys(name for name, _r in table):
            cells = []
            for name in RANGES:
                values = table[(panel_name, name)]
                p50, p95 = statistics.median(values) * 1000, _p95(values) * 1000
                worst[label] = max(worst[label], p95)
                cells.append(f"{p50:7.1f} / {p95:6.1f}")
            print(f"{panel_name:<18}" + "".join(f"{c:>16}" for c in cells))
    print(f"\nworst p95: wall {worst['wall']:.1f} ms, CPU {worst['cpu']:.1f} ms "
          f"(budget {BUDGET_MS:.0f} ms)")  # fmt: skip
    return 0 if worst["wall"] <= BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
