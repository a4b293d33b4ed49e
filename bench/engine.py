"""Engine-alone benchmark: ``python bench/engine.py --set S-yk`` (or ``--set all``).

For every case of a set (``bench/workloads.py``; Q-queueing in ``bench/queueing.py``) it builds
the snapshot (timed as *snapshot*), runs one session on the pure engine and prints: the seed, the
session wall time split per action and per plugin open/close, pods bound, pods bound per second
of session time, jobs admitted by enqueue and peak RSS. There is no write-back on the engine
alone. ``--set all`` runs each set in its own process so that each peak RSS is that set's own.
``--profile`` prints the top of a cProfile of the sessions.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from apis.errors import EngineError
from bench.queueing import run_queueing
from bench.topology import l_topology
from bench.workloads import SETS, Case
from bench.xl import xl
from scheduler.engine.conf import SchedulerConf, load_conf
from scheduler.engine.framework import run_session
from scheduler.engine.framework.decisions import Decisions

# the network topology set (bench/topology.py) and the 20,000-node one (bench/xl.py)
SETS = {**SETS, "L-topology": l_topology, "XL": xl}
ALL = [*SETS, "Q-queueing"]
# The machine is shared: each case also prints the session's CPU time (process time), which
# load inflates far less than wall time, and the load average at the end of each set.
TARGETS = {
    "S-gang": "session <= 50 ms",
    "S-yk": ">= 27,000 pods/s",
    "M-shape": "every session <= 0.5 s",
    "M-mixed": "every session <= 0.5 s",
    "L-basic": "session <= 5 s, peak RSS <= 1.5 GiB",
    "L-mixed": "session <= 10 s, peak RSS <= 1.5 GiB",
    "P-preempt": "all 1,000 placed, session <= 5 s",
    "P-guards": "session <= 1.5x P-preempt's; no victim a guard protects",
    "L-topology": "session <= 2x L-basic's",
    "XL": "XL session <= 5 s and peak <= 2 GiB; near-linear growth from XL/4",
    "Q-queueing": "mean admission below Kueue's (large 6.7 s, medium 77 s, small 215 s)",
}


def peak_rss_mib() -> float:
    """Return this process's peak resident set size in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_case(case: Case, *, profiler: cProfile.Profile | None) -> tuple[float, float] | None:
    """Build, run and print one case; return its session (wall, CPU) seconds."""
    try:
        conf = load_conf(case.conf)
    except EngineError as exc:
        print(f"  {case.label}: CANNOT RUN: {exc}")
        return None
    started = time.perf_counter()
    cluster = case.build()
    snapshot = time.perf_counter() - started
    pending = sum(1 for j in cluster.jobs.values() for t in j.tasks.values() if not t.node_name)
    if profiler is not None:
        profiler.enable()
    cpu_started = time.process_time()
    decisions = run_session(cluster, conf, uid=case.label)
    cpu = time.process_time() - cpu_started
    if profiler is not None:
        profiler.disable()
    timings = decisions.timings
    session = timings.session
    bound = len(decisions.binds)
    actions = ", ".join(f"{k} {v * 1000:.1f}" for k, v in timings.actions.items())
    plugins = ", ".join(
        f"{name}.{hook} {v * 1000:.1f}"
        for hook, by_plugin in (("open", timings.plugins_open), ("close", timings.plugins_close))
        for name, v in by_plugin.items()
        if v >= 0.0005
    )
    rate = bound / session if session else 0.0
    print(
        f"  {case.label}: session {session * 1000:.1f} ms, cpu {cpu * 1000:.1f} ms "
        f"(snapshot {snapshot * 1000:.0f} ms, "
        f"write-back none) | bound {bound}/{pending} pending pods | {rate:,.0f} pods/s | "
        f"enqueued {len(decisions.enqueued)} jobs | evictions {len(decisions.evictions)} | "
        f"pipelined {len(decisions.pipelined)}"
    )
    print(f"    actions ms: {actions}")
    if plugins:
        print(f"    plugins ms (open/close >= 0.5): {plugins}")
    if case.check is not None:
        print(f"    check: {case.check(decisions)}")
    if case.after is not None:
        _run_after(case, conf, decisions)
    return session, cpu


def print_growth(times: dict[str, tuple[float, float]]) -> None:
    """Print how a session grows from ``X/4`` to ``X/2`` to ``X`` for each such trio of cases."""
    for label in times:
        quarter, half = times.get(f"{label}/4"), times.get(f"{label}/2")
        if quarter is None or half is None:
            continue
        full = times[label]
        ratios = [
            f"{name} x{half[i] / quarter[i]:.2f} then x{full[i] / half[i]:.2f}"
            for i, name in enumerate(("wall", "cpu"))
            if quarter[i] > 0 and half[i] > 0
        ]
        print(
            f"  growth {label}/4 -> {label}/2 -> {label} (each step doubles): {'; '.join(ratios)}"
        )


def _run_after(case: Case, conf: SchedulerConf, first: Decisions) -> None:
    """Run the session after ``first`` once its victims are gone; print what it bound."""
    cluster = case.after(first) if case.after else None
    if cluster is None:
        return
    cpu_started = time.process_time()
    decisions = run_session(cluster, conf, uid=f"{case.label}-after")
    cpu = time.process_time() - cpu_started
    placed = sum(1 for key in first.pipelined if decisions.binds.get(key))
    print(
        f"  next session, the {len(first.evictions)} victims gone: session "
        f"{decisions.timings.session * 1000:.1f} ms, cpu {cpu * 1000:.1f} ms | bound "
        f"{len(decisions.binds)} ({placed} of the {len(first.pipelined)} pipelined) | "
        f"evictions {len(decisions.evictions)} | still pending {len(decisions.unschedulable)} jobs"
    )


def run_q(seed: int) -> None:
    """Run and print Q-queueing."""
    result = run_queueing(seed)
    walls = result.session_walls
    print(
        f"  {result.sessions} sessions over {result.simulated_seconds:.0f} simulated s; "
        f"session wall mean {sum(walls) / max(len(walls), 1) * 1000:.1f} ms, "
        f"max {max(walls, default=0) * 1000:.1f} ms; snapshots {result.snapshot_wall:.1f} s total"
    )
    print(f"  bound {result.bound} | enqueued {result.enqueued} jobs")
    actions = ", ".join(f"{k} {v:.2f} s" for k, v in result.action_walls.items())
    print(f"  actions total: {actions}")
    for kind, waits in result.wait_by_class.items():
        mean = sum(waits) / len(waits) if waits else float("nan")
        print(
            f"  time to admission, {kind}: mean {mean:.2f} s, max {max(waits, default=0):.2f} s, n={len(waits)}"
        )


def run_set(name: str, seed: int, *, profile: bool) -> None:
    """Run every case of set ``name`` and print its figures."""
    print(f"== {name} (seed {seed}; target: {TARGETS[name]})")
    profiler = cProfile.Profile() if profile else None
    if name == "Q-queueing":
        run_q(seed)
    else:
        workload = SETS[name](seed)
        times: dict[str, tuple[float, float]] = {}
        for case in workload.cases:
            measured = run_case(case, profiler=profiler)
            if measured is not None:
                times[case.label] = measured
        print_growth(times)
    print(f"  peak RSS {peak_rss_mib():.0f} MiB; load average {os.getloadavg()[0]:.1f}")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen sets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--set", default="S-yk", choices=[*ALL, "all"])
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    if args.set != "all":
        run_set(args.set, args.seed, profile=args.profile)
        return 0
    code = 0
    for name in ALL:
        command = [sys.executable, __file__, "--set", name, "--seed", str(args.seed)]
        code |= subprocess.run(command, check=False).returncode
    return code


if __name__ == "__main__":
    raise SystemExit(main())
