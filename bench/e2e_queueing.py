"""Q-queueing through Django: ``python bench/e2e_queueing.py --db sqlite|postgres [--seed N]``.

The engine-alone simulation of ``bench/queueing.py`` (same generator: same draws in the same
order, so the same arrivals, classes and queues for a seed; same 500 nodes, 30 queues capped at a
thirtieth of the cluster, conf ``default+binpack``, period and arrival window), but with the jobs
living in a scratch database and every session the live path. On a simulated clock, step ``k``
at ``now = k * period``:

1. Arrivals: jobs whose arrival time has passed are inserted as rows, a PodGroup (minMember 1)
   and its one pod, written as ``bench/e2e.py`` writes a snapshot's jobs, with ``created_at`` =
   the arrival on the simulated clock and the class's runtime in the pod's
   ``volcano.sh/sim-duration`` annotation. (Not Volcano Jobs through the controller: the engine
   bench has no controller, the controller's cycle would add one session of delay before a
   PodGroup even exists, and its reconcile of 15,000 Jobs per cycle would be what is measured.)
2. The simulated kubelet (``kubelet.runtime.tick``, start delay 0) runs at ``now``: pods
   whose runtime is over become Succeeded, so their nodes are free for this session.
3. One session, the live path split as ``bench/e2e.py`` splits it: *read* (``read_snapshot``),
   *engine* (``run_session``), *write* (``apply_decisions``), all at ``now``.
4. Observation (not timed as the session): which PodGroups left Pending (Inqueue or later) and
   which pods got a node, read back from the rows.
5. The kubelet ticks twice more at ``now``: binds are acknowledged (``start_time = now``), then
   Running. A pod bound at ``t`` thus runs from ``t`` to ``t + runtime`` and frees its node at
   the first session at or after that, exactly as the engine bench's ``ends <= now``.

Time to admission of a job = simulated time from its arrival to the session that moved its
PodGroup out of Pending (Kueue's "admission": quota reserved). Time to bind = to the session
that bound its pod, which is what ``bench/queueing.py`` calls time to admission. The run stops,
as the engine bench's, after the session in which every job has arrived and is bound. Session
wall times are real; since the clock is simulated, a session slower than the period does not
delay the next one, so the run also prints the admission means the same sessions would give run
back to back at their measured wall, and at their CPU time (what an idle machine would take,
with SQLite's work in-process; PostgreSQL's server time is not in it), one every
``max(period, session)`` (arrivals in one burst only).

Against the engine bench (``--compare`` runs it on the same arguments): both bind the same jobs
in the first session; after that the engine bench drops a finished job from its next snapshot,
while here its PodGroup is still Inqueue (the session that bound it left it so: a Binding pod
is not yet scheduled) until the next session reads its pod Succeeded and writes Completed. In
that session its minResources still count as its queue's *inqueue* in proportion and overcommit
(Volcano's rule for an Inqueue PodGroup), and with every queue at its cap the session admits
almost nothing new. Sessions alternate full and nearly empty: about twice as many sessions and
mean waits (seed 42: 10 sessions instead of 6; 3.0 / 3.0 / 3.3 s instead of 1.7 / 1.7 / 2.1 s
for small / medium / large). Replaying the engine alone with finished jobs kept one session
with their last phase gives the same binds per session and the same means as here.

Databases: ``sqlite`` uses a file in a fresh temporary directory; ``postgres`` uses
``--database-url`` (default ``postgres://postgres@127.0.0.1:5432/volcano_bench_q``, dropped
and created afresh: it is this benchmark's own scratch database). Nothing touches the developer's own database.
"""

from __future__ import annotations

import argparse
import inspect
import os
import random
import resource
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.e2e import _empty, _load, _setup
from bench.queueing import CLASSES, run_queueing
from bench.workloads import CONFS, GI, T0, build_nodes
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.resource import Resource

DEFAULT_PG = "postgres://postgres@127.0.0.1:5432/volcano_bench_q"
KUEUE = {"large": 6.7, "medium": 77.0, "small": 215.0}  # Kueue's mean time to admission, s
NODES, QUEUES = 500, 30
_ENGINE_DEFAULTS = {
    name: p.default
    for name, p in inspect.signature(run_queueing).parameters.items()
    if p.default is not inspect.Parameter.empty
}


@dataclass(slots=True)
class Arrival:
    """One generated job: its name, class, queue and arrival on the simulated clock."""

    name: str
    kind: str
    queue: str
    arrival: float


def generate(seed: int, jobs_total: int, arrival_window: float) -> list[Arrival]:
    """Return the jobs ``bench/queueing.py``'s ``run_queueing`` generates for these arguments.

    The same draws in the same order as there (that module keeps them inline, so they are
    repeated here; ``main`` checks the class counts against the engine run).
    """
    rng = random.Random(seed)
    kinds, shares = list(CLASSES), [c[2] for c in CLASSES.values()]
    arrivals = sorted(rng.uniform(0, arrival_window) for _ in range(jobs_total))
    return [
        Arrival(f"job-{i}", rng.choices(kinds, shares)[0], f"q{rng.randrange(QUEUES)}", at)
        for i, at in enumerate(arrivals)
    ]


def base_cluster() -> ClusterInfo:
    """Return the nodes and queues of the engine bench, with no jobs."""
    cap = Resource({"cpu": NODES * 32000 // QUEUES, "memory": NODES * 256 * GI // QUEUES})
    queues = [
        QueueInfo(name=f"q{i}", weight=1, capability=cap, creation_timestamp=T0)
        for i in range(QUEUES)
    ]
    return ClusterInfo.build(now=T0, nodes=build_nodes(NODES), jobs=[], queues=queues)


@contextmanager
def _stamped_creation() -> Iterator[None]:
    """Let rows keep the ``created_at`` we give them (the simulated arrival), not wall time."""
    from core.models import Pod
    from queues.models import PodGroup

    fields = [model._meta.get_field("created_at") for model in (PodGroup, Pod)]
    saved = [getattr(f, "auto_now_add", False) for f in fields]
    for f in fields:
        f.auto_now_add = False
    try:
        yield
    finally:
        for f, value in zip(fields, saved, strict=True):
            f.auto_now_add = value


def insert_arrivals(batch: list[Arrival]) -> None:
    """Write each job as a Pending PodGroup of minMember 1 and its one Pending pod."""
    from django.db import transaction

    from core.models import Pod
    from kubelet.runtime import DURATION_ANNOTATION
    from queues.models import PodGroup

    spec = {"containers": [{"name": "main", "image": "busybox"}]}
    with transaction.atomic(), _stamped_creation():
        groups = []
        for a in batch:
            cpu = CLASSES[a.kind][0]
            groups.append(
                PodGroup(
                    namespace="bench", name=a.name, queue=a.queue, min_member=1,
                    phase="Pending", created_at=T0 + timedelta(seconds=a.arrival),
                    min_resources={"cpu": cpu, "memory": cpu // 1000 * GI},
                )
            )  # fmt: skip
        PodGroup.objects.bulk_create(groups, batch_size=2000)
        pods = []
        for a, group in zip(batch, groups, strict=True):
            assert group.pk is not None, "bulk_create must return primary keys"
            cpu, runtime, _ = CLASSES[a.kind]
            requests = {"cpu": cpu, "memory": cpu // 1000 * GI}
            pods.append(
                Pod(
                    namespace="bench", name=f"{a.name}-worker-0", pod_group_id=group.pk,
                    task_name="worker", requests=requests, cpu_milli=cpu,
                    memory_milli=requests["memory"], gpu_milli=0, priority=0, spec=spec,
                    labels={"class": a.kind},
                    annotations={DURATION_ANNOTATION: f"{round(runtime * 1000)}ms"},
                    phase="Pending", created_at=group.created_at,
                )
            )  # fmt: skip
        Pod.objects.bulk_create(pods, batch_size=2000)


@dataclass(slots=True)
class Figures:
    """What one run measured: per-session splits (wall and CPU s) and per-class waits."""

    sessions: int = 0
    simulated_seconds: float = 0.0
    read: list[float] = field(default_factory=list)
    engine: list[float] = field(default_factory=list)
    write: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    cpu_split: list[tuple[float, float, float]] = field(default_factory=list)
    bound: int = 0
    refused: int = 0
    admitted: dict[str, list[float]] = field(default_factory=dict)
    bind_wait: dict[str, list[float]] = field(default_factory=dict)
    insert_wall: float = 0.0
    kubelet_wall: float = 0.0
    observe_wall: float = 0.0
    succeeded: int = 0
    paced: dict[str, list[float]] = field(default_factory=dict)
    paced_cpu: dict[str, list[float]] = field(default_factory=dict)
    paced_valid: bool = False  # the paced clock is only exact when every job arrives at 0


def simulate(
    jobs: list[Arrival], conf_text: str, *, period: float, progress: bool = False
) -> Figures:
    """Run the sessions on the simulated clock (steps 1-5 of the module docstring)."""
    from core.models import Pod
    from kubelet.runtime import RuntimeSettings, tick
    from queues.models import PodGroup
    from scheduler.cache import apply_decisions, read_snapshot
    from scheduler.engine import load_conf, run_session

    conf = load_conf(conf_text)
    kubelet = RuntimeSettings(start_delay=0.0, default_duration=period, speed=1.0)
    figures = Figures(
        admitted={k: [] for k in CLASSES},
        bind_wait={k: [] for k in CLASSES},
        paced={k: [] for k in CLASSES},
        paced_cpu={k: [] for k in CLASSES},
    )
    # When this session would start with sessions back to back at their wall (CPU) time.
    paced_start, paced_cpu_start = 0.0, 0.0
    by_name = {a.name: a for a in jobs}
    waiting_admission: set[str] = set()
    waiting_bind: set[str] = set()
    step, nxt = 0, 0
    while True:
        now = step * period
        at = T0 + timedelta(seconds=now)
        # 1. Arrivals.
        began = time.perf_counter()
        first = nxt
        while nxt < len(jobs) and jobs[nxt].arrival <= now:
            nxt += 1
        if nxt > first:
            insert_arrivals(jobs[first:nxt])
            names = {a.name for a in jobs[first:nxt]}
            waiting_admission |= names
            waiting_bind |= names
        figures.insert_wall += time.perf_counter() - began
        # 2. Pods whose runtime is over end.
        began = time.perf_counter()
        figures.succeeded += tick(now=at, config=kubelet).succeeded
        figures.kubelet_wall += time.perf_counter() - began
        running = nxt - figures.succeeded  # arrived and not finished
        if running > 0:
            # 3. One live session.
            uid = f"q-{figures.sessions}"
            cpu0, t0 = time.process_time(), time.perf_counter()
            snapshot = read_snapshot(now=at)
            cpu1, t1 = time.process_time(), time.perf_counter()
            decisions = run_session(snapshot.cluster, conf, uid=uid)
            cpu2, t2 = time.process_time(), time.perf_counter()
            applied = apply_decisions(snapshot, decisions, now=at, session_uid=uid)
            cpu3, t3 = time.process_time(), time.perf_counter()
            figures.cpu.append(cpu3 - cpu0)
            figures.cpu_split.append((cpu1 - cpu0, cpu2 - cpu1, cpu3 - cpu2))
            figures.read.append(t1 - t0)
            figures.engine.append(t2 - t1)
            figures.write.append(t3 - t2)
            figures.sessions += 1
            paced_end = paced_start + (t3 - t0)
            paced_start += max(period, t3 - t0)
            paced_cpu_end = paced_cpu_start + (cpu3 - cpu0)
            paced_cpu_start += max(period, cpu3 - cpu0)
            figures.bound += applied.bound
            figures.refused += len(applied.skipped_binds)
            # 4. Observe, from the rows, what this session admitted and bound.
            began = time.perf_counter()
            pending = set(PodGroup.objects.filter(phase="Pending").values_list("name", flat=True))
            for name in waiting_admission - pending:
                figures.admitted[by_name[name].kind].append(now - by_name[name].arrival)
                figures.paced[by_name[name].kind].append(paced_end - by_name[name].arrival)
                figures.paced_cpu[by_name[name].kind].append(paced_cpu_end - by_name[name].arrival)
            waiting_admission &= pending
            unbound = {
                n.rsplit("-worker-", 1)[0]
                for n in Pod.objects.filter(node__isnull=True).values_list("name", flat=True)
            }
            for name in waiting_bind - unbound:
                figures.bind_wait[by_name[name].kind].append(now - by_name[name].arrival)
            waiting_bind &= unbound
            figures.observe_wall += time.perf_counter() - began
            if progress:
                print(
                    f"    t={now:5.1f} s: session {(t3 - t0) * 1000:.0f} ms (read "
                    f"{(t1 - t0) * 1000:.0f}, engine {(t2 - t1) * 1000:.0f}, write "
                    f"{(t3 - t2) * 1000:.0f}), {len(snapshot.cluster.jobs)} jobs read, "
                    f"bound {applied.bound}, still pending {len(waiting_admission)}, "
                    f"unbound {len(waiting_bind)}",
                    flush=True,
                )
        # 5. Binds are acknowledged, then Running, at this same instant.
        began = time.perf_counter()
        tick(now=at, config=kubelet)
        tick(now=at, config=kubelet)
        figures.kubelet_wall += time.perf_counter() - began
        if nxt >= len(jobs) and not waiting_bind:
            break
        step += 1
    figures.simulated_seconds = step * period
    figures.paced_valid = all(a.arrival == 0 for a in jobs)
    return figures


def _stats(values: list[float]) -> str:
    if not values:
        return "n=0"
    return f"mean {sum(values) / len(values):.2f} s, max {max(values):.2f} s, n={len(values)}"


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    return f"mean {sum(values) / len(values) * 1000:.0f} / max {max(values) * 1000:.0f} ms"


def report(figures: Figures, wall: float, cpu: float, setup: float) -> None:
    """Print the figures of one run."""
    totals = [
        r + e + w for r, e, w in zip(figures.read, figures.engine, figures.write, strict=True)
    ]
    print(
        f"  {figures.sessions} sessions over {figures.simulated_seconds:.0f} simulated s; "
        f"bound {figures.bound} (refused as stale {figures.refused}), "
        f"finished {figures.succeeded} by the end"
    )
    print(f"  session wall {_ms(totals)}; CPU {_ms(figures.cpu)}")
    print(
        f"    wall: read {_ms(figures.read)} | engine {_ms(figures.engine)} | "
        f"write {_ms(figures.write)}"
    )
    split = [list(x) for x in zip(*figures.cpu_split, strict=True)] or [[], [], []]
    print(f"    CPU:  read {_ms(split[0])} | engine {_ms(split[1])} | write {_ms(split[2])}")
    print(
        f"  outside the sessions: inserting arrivals {figures.insert_wall:.1f} s, kubelet ticks "
        f"{figures.kubelet_wall:.1f} s, observing {figures.observe_wall:.1f} s"
    )
    for kind in CLASSES:
        print(
            f"  time to admission, {kind}: {_stats(figures.admitted[kind])} "
            f"(Kueue {KUEUE[kind]} s); to bind: {_stats(figures.bind_wait[kind])}"
        )
    if figures.paced_valid:
        for label, paced in (("wall", figures.paced), ("CPU time", figures.paced_cpu)):
            print(
                f"  sessions back to back at their measured {label} (one every max(period, "
                f"{label})), mean admission would be: "
                + ", ".join(f"{k} {sum(v) / len(v):.1f} s" for k, v in paced.items() if v)
            )
    met = all(
        figures.admitted[k] and sum(figures.admitted[k]) / len(figures.admitted[k]) < KUEUE[k]
        for k in CLASSES
    )
    print(f"  target (every class's mean admission below Kueue's): {'met' if met else 'NOT met'}")
    print(
        f"  total wall {wall:.1f} s (of which setup {setup:.1f} s: migrate, empty the "
        f"database, nodes and queues), CPU {cpu:.1f} s; peak RSS "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; load average "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
    )


def _drop_database(url: str) -> None:
    """Drop the scratch database, so setup migrates a fresh one.

    Emptying the last run's 15,000 PodGroups and pods row by row through the ORM (``_empty``)
    takes minutes; a fresh database takes seconds.
    """
    import psycopg

    base, _, name = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def main(argv: list[str] | None = None) -> int:
    """Run Q-queueing through Django on the chosen database and print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--database-url", default=os.environ.get("BENCH_Q_DATABASE_URL", DEFAULT_PG)
    )
    parser.add_argument("--seed", type=int, default=42, help="as bench/engine.py's default")
    parser.add_argument("--jobs", type=int, default=_ENGINE_DEFAULTS["jobs_total"])
    parser.add_argument(
        "--arrival-window", type=float, default=_ENGINE_DEFAULTS["arrival_window"],
        help="simulated seconds over which jobs arrive (the engine bench's default)",
    )  # fmt: skip
    parser.add_argument("--period", type=float, default=_ENGINE_DEFAULTS["period"])
    parser.add_argument("--progress", action="store_true", help="print a line per session")
    parser.add_argument(
        "--compare", action="store_true",
        help="first run bench/queueing.py (engine alone) on the same arguments and print it",
    )  # fmt: skip
    args = parser.parse_args(argv)
    started, cpu_started = time.perf_counter(), time.process_time()
    if args.db == "postgres":
        _drop_database(args.database_url)
    _setup(args.db, args.database_url)
    _empty()
    conf_text = CONFS["default+binpack"]
    _load(base_cluster(), conf_text)
    setup = time.perf_counter() - started
    jobs = generate(args.seed, args.jobs, args.arrival_window)
    counts = {k: sum(1 for a in jobs if a.kind == k) for k in CLASSES}
    print(
        f"Q-queueing through Django on {args.db} (seed {args.seed}): {NODES} nodes, {QUEUES} "
        f"queues, {len(jobs)} jobs "
        + ", ".join(f"{k} {n}" for k, n in counts.items())
        + f", arriving over {args.arrival_window:g} s, a session every {args.period:g} s"
    )
    if args.compare:
        engine = run_queueing(
            args.seed, jobs_total=args.jobs, arrival_window=args.arrival_window,
            period=args.period,
        )  # fmt: skip
        print(
            f"  engine alone (bench/queueing.py): {engine.sessions} sessions over "
            f"{engine.simulated_seconds:.0f} simulated s; time to bind: "
            + ", ".join(f"{k} {_stats(v)}" for k, v in engine.wait_by_class.items())
        )
    figures = simulate(jobs, conf_text, period=args.period, progress=args.progress)
    report(figures, time.perf_counter() - started, time.process_time() - cpu_started, setup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
