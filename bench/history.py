"""History recording benchmark: ``python bench/history.py`` (``--runs 5``).

Budget: recording costs at most 5% of an M-mixed session (``bench/workloads.py``: 2,000
nodes, 8 queues, 400 mixed jobs). Each run builds the M-mixed snapshot twice and times, on the
pure engine plus the history's database write (a fresh SQLite file):

- *before*: ``run_session(report_shares=True)``, what the worker ran before the history;
- *after*: the same session with the DRF observer, then ``build_sample`` and
  ``record_session`` (sample built, compressed, one row written), then what the worker adds for the Nodes pages and their
  history: ``record_node_sample`` (every node's load in one row; due every
  ``VOLCANO_HISTORY_NODE_PERIOD``, timed here at every session, the worst case), part of the
  recording, and ``store_node_loads`` (every node's load onto the node rows, one UPDATE of
  the changed ones; every run's loads differ from the last, the worst case), status like
  the queues' shares, printed on its own line and not counted as recording.

Prints the median of each; the verdict uses the recording's own time (the observer's calls
plus ``build_sample`` and ``record_session``), measured inside the *after* runs, since two whole sessions on a
shared machine differ by more than 5% from load alone. Then the sample's stored size, then the size of a week
at the default tiers for 100 queues and 10,000 running jobs (one synthetic sample of that
size, times 3,600 + 1,440 + 1,008 rows) and how long reading a day of it (1,440 per-minute
rows, every queue field, median of three) takes. Exits 1 when the budget is exceeded. Not run by ``make test``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import setup_django  # noqa: E402

BUDGET = 0.05
WEEK_ROWS = 3600 + 1440 + 1008


class _TimedSampler:
    """The DRF observer, timed (its cost is inside the session's)."""

    def __init__(self) -> None:
        from scheduler.session_sample import DrfSampler

        self.sampler = DrfSampler(top=50)
        self.seconds = 0.0

    def __call__(self, ssn: Any, stage: str) -> None:
        started = time.perf_counter()
        self.sampler(ssn, stage)
        self.seconds += time.perf_counter() - started


def _node_loads(cluster: Any, pks: dict[str, int]) -> dict[int, tuple[int, int, int, int]]:
    """Return each node's held cpu, memory, GPUs and pod count after the session (untimed:
    the worker sums them while reading its snapshot and adds the binds)."""
    loads: dict[int, list[int]] = {}
    for job in cluster.jobs.values():
        for task in job.tasks.values():
            if task.node_name:
                held = loads.setdefault(pks[task.node_name], [0, 0, 0, 0])
                held[0] += task.resreq.get("cpu")
                held[1] += task.resreq.get("memory")
                held[2] += task.resreq.get("nvidia.com/gpu")
                held[3] += 1
    return {pk: (a, b, c, d) for pk, (a, b, c, d) in loads.items()}


def _store_nodes(cluster: Any) -> dict[str, int]:
    """Store the M-mixed nodes as rows (once); return their primary keys by name."""
    from core.models import Node

    Node.objects.bulk_create(Node(name=name) for name in sorted(cluster.nodes))
    return dict(Node.objects.values_list("name", "pk"))


def _time_sessions(
    runs: int, seed: int
) -> tuple[list[float], list[float], list[float], list[float], list[float], int, int]:
    from django.conf import settings

    from bench.workloads import SETS
    from monitoring.models import HistorySample
    from monitoring.node_history import NodeHistorySample, record_node_sample
    from monitoring.recorder import record_session
    from scheduler.engine import load_conf, run_session
    from scheduler.load_status import store_node_loads
    from scheduler.session_sample import build_sample

    settings.VOLCANO_HISTORY_NODE_PERIOD = 0

    case = SETS["M-mixed"](seed).cases[0]
    conf = load_conf(case.conf)
    before: list[float] = []
    after: list[float] = []
    recording: list[float] = []
    nodes_part: list[float] = []
    store_part: list[float] = []
    pks: dict[str, int] = {}
    for run in range(runs):
        cluster = case.build()
        started = time.perf_counter()
        run_session(cluster, conf, report_shares=True)
        before.append(time.perf_counter() - started)

        cluster = case.build()
        started = time.perf_counter()
        timed = _TimedSampler()
        decisions = run_session(cluster, conf, report_shares=True, observer=timed)
        e2e_ms = (time.perf_counter() - started) * 1000
        pks = pks or _store_nodes(cluster)
        # (untimed) every run's figures differ from the last stored: each node row is written
        loads = {pk: (c + run, m, g, p) for pk, (c, m, g, p) in _node_loads(cluster, pks).items()}
        paused = time.perf_counter() - started - e2e_ms / 1000
        began = time.perf_counter()
        sample = build_sample(
            cluster=cluster, decisions=decisions, job_shares=timed.sampler.shares,
            e2e_ms=e2e_ms, binds=len(decisions.binds), evictions=len(decisions.evictions),
        )  # fmt: skip
        record_session(now=datetime.now(UTC), sample=sample)
        nodes_began = time.perf_counter()
        record_node_sample(loads, now=datetime.now(UTC))
        ended = time.perf_counter()
        store_node_loads(loads, now=datetime.now(UTC))
        stored = time.perf_counter()
        after.append(stored - started - paused)
        recording.append(timed.seconds + ended - began)
        nodes_part.append(ended - nodes_began)
        store_part.append(stored - ended)
    size = len(bytes(HistorySample.objects.order_by("-pk").values_list("data", flat=True)[0]))
    node_size = len(
        bytes(NodeHistorySample.objects.order_by("-pk").values_list("data", flat=True)[0])
    )
    return before, after, recording, nodes_part, store_part, size, node_size


def _big_sample() -> dict[str, Any]:
    """Return a sample of 100 queues x 4 resources and 10,000 running jobs' shares.

    Amounts as a cluster holds them (milli-units of whole cores, GiB, GPUs and pods): each
    queue's allocated and deserved differ, one queue in ten has a guarantee, capabilities are
    the cluster's total or a round quota.
    """
    import random

    rng = random.Random(7)
    gib = 1024**3 * 1000
    names = [f"queue-{i:03d}" for i in range(100)]
    total = [5000 * 64_000, 5000 * 256 * gib, 1250 * 8000, 5000 * 110_000]

    def amounts() -> list[int]:
        cores = rng.randrange(0, 3200)
        return [cores * 1000, cores * 4 * gib, rng.randrange(0, 100) * 1000, cores * 1000]

    from monitoring.latency import histogram, merge_histograms

    actions = dict.fromkeys(("enqueue", "allocate", "backfill", "preempt", "reclaim"), 50.0)
    plugins = dict.fromkeys(("priority", "gang", "drf", "proportion", "binpack"), 1.0)
    # a roll-up's spread: its sessions over several buckets per component
    hist = merge_histograms(
        histogram(250.0 * f, {k: v * f for k, v in actions.items()},
                  {k: v * f for k, v in plugins.items()})
        for f in (0.3, 0.6, 1.0, 1.5, 3.0)
    )  # fmt: skip
    return {
        "v": 1,
        "resources": ["cpu", "memory", "nvidia.com/gpu", "pods"],
        "queues": {
            "name": names,
            "weight": [rng.randrange(1, 10) for _ in names],
            "pending": [rng.randrange(0, 100) for _ in names],
            "inqueue": [rng.randrange(0, 100) for _ in names],
            "running": [100] * len(names),
            "pods_pending": [rng.randrange(0, 400) for _ in names],
            "pods_running": [rng.randrange(0, 800) for _ in names],
            "share": [round(rng.random(), 6) for _ in names],
            "allocated": [amounts() for _ in names],
            "deserved": [amounts() for _ in names],
            "guarantee": [amounts() if i % 10 == 0 else [0, 0, 0, 0] for i in range(100)],
            "capability": [total if i % 4 else [c // 10 for c in total] for i in range(100)],
        },
        "drf": {
            "top": [[f"ns/job-{i}", names[i], round(rng.random(), 6), "cpu"] for i in range(50)],
            "queues": {n: [100, round(rng.random(), 6), round(rng.random(), 6)] for n in names},
        },
        "latency": {
            "e2e": 250.0, "e2e_max": 250.0,
            "actions": actions, "plugins": plugins, "hist": hist,
        },
        "counts": {"binds": 10, "evictions": 1, "evictions_by_action": {"preempt": 1},
                   "evictions_by_queue": {names[rng.randrange(100)]: 1},
                   "pipelined": 0, "unschedulable_jobs": 5, "unschedulable_tasks": 50},
    }  # fmt: skip


def _week_at_scale() -> tuple[int, float]:
    """Return (bytes of a week's rows, seconds to read a day's per-minute queue series)."""
    from monitoring.history import queue_series
    from monitoring.models import HistorySample, encode

    data = encode(_big_sample())
    now = datetime(2026, 1, 8, tzinfo=UTC)
    HistorySample.objects.bulk_create(
        HistorySample(at=now - timedelta(minutes=i), resolution=60, samples=60, data=data)
        for i in range(1440)
    )
    walls = []
    for _ in range(3):  # the median of three: the machine is shared
        started = time.perf_counter()
        series = queue_series("cpu", now - timedelta(days=1), now, resolution=60, now=now)
        walls.append(time.perf_counter() - started)
        if series.resolution != 60 or len(series.times) != 1440:
            raise RuntimeError("the day was not read per minute")
    seconds = statistics.median(walls)
    return len(data) * WEEK_ROWS, seconds


def main(argv: list[str] | None = None) -> int:
    """Time the sessions, print the figures and the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as data_dir:
        setup_django(data_dir)
        before, after, recording, nodes_part, store_part, size, node_size = _time_sessions(
            args.runs, args.seed
        )
        week_bytes, read_day = _week_at_scale()
    b, a = statistics.median(before), statistics.median(after)
    r = statistics.median(recording)
    cost = r / b
    print(f"M-mixed session, median of {args.runs}: before {b * 1000:.1f} ms, "
          f"after (observer + record) {a * 1000:.1f} ms ({(a - b) / b:+.1%}, load noise "
          f"included); recording itself {r * 1000:.2f} ms = {cost:.1%} (budget {BUDGET:.0%})")  # fmt: skip
    print(f"  before runs ms: {', '.join(f'{x * 1000:.0f}' for x in before)}")
    print(f"  after runs ms:  {', '.join(f'{x * 1000:.0f}' for x in after)}")
    print(f"  of which the nodes' sample (2,000 nodes; due every VOLCANO_HISTORY_NODE_PERIOD, "
          f"timed at every session): {statistics.median(nodes_part) * 1000:.2f} ms")  # fmt: skip
    print(f"  not recording but in 'after': the nodes' loads stored for the Nodes pages, every "
          f"node changed (worst case): {statistics.median(store_part) * 1000:.2f} ms "
          f"= {statistics.median(store_part) / b:.1%}")  # fmt: skip
    print(f"  one M-mixed sample stored: {size:,} bytes; one sample of every node: "
          f"{node_size:,} bytes")  # fmt: skip
    print(f"100 queues, 10,000 running jobs: a week at the default tiers ({WEEK_ROWS:,} rows) "
          f"{week_bytes / 2**20:.1f} MiB; reading a day per minute {read_day * 1000:.0f} ms")  # fmt: skip
    return 0 if cost <= BUDGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
