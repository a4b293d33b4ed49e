"""Through-Django benchmark: ``python bench/e2e.py --set L-basic|XL --db sqlite|postgres [--reads]``.

For each case of a set (the engine benchmark's seeded generators, ``bench/workloads.py``) it
writes the snapshot as rows (nodes, queues, priority classes, PodGroups, pods) into a scratch
database, then times one live session split as Volcano's logs would: *read* (``read_snapshot``:
rows → ClusterInfo), *engine* (``run_session``), *write* (``apply_decisions``: binds, PodGroup
status, queue status in one transaction). It prints pods bound and bound per second of the whole
session, and peak RSS.

``--set XL`` runs ``bench/xl.py``'s cases (20,000 nodes and 200,000 pods at full size) and prints
how each part grows from XL/4 to XL/2 to XL. ``--reads`` then also prints a full snapshot read
against the worker's incremental one (``scheduler.cache.row_cache``: the rows it kept, brought up
to date from the change stream) on the unchanged cluster and after a few changes, with the rows'
part (change stream and fetches) apart from building the engine's objects. On an unchanged
cluster the first such read builds the snapshot and keeps it, the next ones copy it
(``scheduler.cache.quiet_reads``): both are printed.

Databases: ``sqlite`` uses a file in a fresh temporary directory; ``postgres`` uses
``--database-url`` (default ``postgres://postgres@127.0.0.1:5432/volcano_bench``, created when
missing and emptied before each case). Nothing touches the developer's own database.
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGETS = {
    "S-gang": "session <= 200 ms",
    "S-yk": ">= 5,000 pods/s",
    "M-shape": "every session <= 1 s",
    "M-mixed": "every session <= 1 s",
    "L-basic": "session <= 10 s",
    "L-mixed": "session <= 20 s",
    "P-preempt": "all 1,000 placed, session <= 10 s",
    "XL": "session <= 15 s (issue 34)",
}
DEFAULT_PG = "postgres://postgres@127.0.0.1:5432/volcano_bench"


def _setup(db: str, url: str) -> None:
    os.environ.pop("REDIS_URL", None)
    if db == "sqlite":
        os.environ.pop("DATABASE_URL", None)
        os.environ["VOLCANO_DATA_DIR"] = tempfile.mkdtemp(prefix="volcano-bench-")
    else:
        import psycopg

        base, _, name = url.rpartition("/")
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (name,)
            ).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{name}"')
        os.environ["DATABASE_URL"] = url
        os.environ.setdefault("VOLCANO_DATA_DIR", tempfile.mkdtemp(prefix="volcano-bench-"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def _empty() -> None:
    """Delete the previous case's rows without a signal per row (200,000 pods at XL)."""
    from django.db import connection

    from core.models import Event, Node, Pod
    from kube.models import ChangeEvent
    from queues.models import PROTECTED_QUEUE_NAMES, PodGroup, Queue

    tables = [m._meta.db_table for m in (Pod, PodGroup, Node, Event, ChangeEvent)]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"TRUNCATE {', '.join(tables)} CASCADE")
        else:
            for table in tables:
                cursor.execute(f"DELETE FROM {table}")
    Queue.objects.exclude(name__in=PROTECTED_QUEUE_NAMES).delete()


def _load(cluster: Any, conf_text: str) -> None:
    """Write ``cluster`` (a ClusterInfo) as rows; the conf becomes the active configuration."""
    from django.db import transaction

    from core.models import Node, Pod, PriorityClass
    from queues.models import PodGroup, Queue
    from scheduler.engine.api.types import TaskStatus
    from scheduler.models import SchedulerConfiguration

    def milli(res: Any) -> dict[str, int]:
        return {} if res is None else {k: v for k, v in res.items() if k != "pods"}

    with transaction.atomic():
        SchedulerConfiguration.objects.update(is_active=False)
        top = SchedulerConfiguration.objects.order_by("-version").first()
        SchedulerConfiguration.objects.create(
            version=(top.version + 1) if top else 1, text=conf_text, is_active=True
        )
        for name, value in cluster.priority_classes.items():
            PriorityClass.objects.get_or_create(name=name, defaults={"value": value})
        for q in cluster.queues.values():
            Queue.objects.update_or_create(
                name=q.name,
                defaults={"weight": q.weight, "capability": milli(q.capability),
                          "deserved": milli(q.deserved), "reclaimable": q.reclaimable},
            )  # fmt: skip
        nodes = [
            Node(name=n.name, allocatable=n.allocatable.as_dict(), capacity=n.allocatable.as_dict(),
                 labels=n.labels, unschedulable=n.unschedulable,
                 taints=[{"key": t.key, "value": t.value, "effect": t.effect} for t in n.taints])
            for n in cluster.node_list
        ]  # fmt: skip
        Node.objects.bulk_create(nodes, batch_size=2000)
        node_pk = dict(Node.objects.values_list("name", "pk"))
        groups = [
            PodGroup(namespace=j.namespace, name=j.name, queue=j.queue, min_member=j.min_available,
                     min_task_member=j.task_min_available, phase=str(j.phase),
                     priority_class_name=j.priority_class_name,
                     min_resources=milli(j.min_resources))
            for j in cluster.jobs.values()
        ]  # fmt: skip
        PodGroup.objects.bulk_create(groups, batch_size=2000)
        group_pk = {
            f"{ns}/{n}": pk for ns, n, pk in PodGroup.objects.values_list("namespace", "name", "pk")
        }
        pods: list[Pod] = []
        for job in cluster.jobs.values():
            for t in job.tasks.values():
                req = milli(t.resreq)
                tmpl = t.template
                spec: dict[str, Any] = {"containers": [{"name": "main", "image": "busybox"}]}
                if tmpl.node_selector:
                    spec["nodeSelector"] = tmpl.node_selector
                if tmpl.tolerations:
                    spec["tolerations"] = [{"key": x.key, "operator": x.operator, "value": x.value,
                                            "effect": x.effect} for x in tmpl.tolerations]  # fmt: skip
                placed = bool(t.node_name) and t.status != TaskStatus.PENDING
                pods.append(Pod(
                    namespace=t.namespace, name=t.name, pod_group_id=group_pk[job.uid],
                    task_name=t.role or "task", requests=req, cpu_milli=req.get("cpu", 0),
                    memory_milli=req.get("memory", 0), gpu_milli=req.get("nvidia.com/gpu", 0),
                    priority=t.priority, spec=spec, labels=dict(tmpl.labels),
                    node_id=node_pk[t.node_name] if placed else None,
                    phase="Running" if placed else "Pending",
                ))  # fmt: skip
        Pod.objects.bulk_create(pods, batch_size=2000)


def _settle() -> None:
    """Vacuum and analyze after loading, as autovacuum would on a live database.

    Each case deletes the previous case's rows and bulk-loads its own; without this the session
    would scan hundreds of thousands of dead rows and plan against tables with no statistics.
    """
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")


def _timed(fn: Any) -> tuple[Any, float, float]:
    """Return ``(fn(), wall seconds, CPU seconds)``."""
    c, t = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def _few_changes() -> str:
    """Write what a quiet second brings, through the recorded paths (each a change event)."""
    from django.db import transaction

    from core.models import Node, Pod
    from queues.models import PodGroup

    with transaction.atomic():
        for node in Node.objects.order_by("pk")[:5]:
            node.unschedulable = True
            node.save(update_fields=["unschedulable"])
        group = PodGroup.objects.order_by("pk").first()
        assert group is not None
        template = Pod.objects.filter(pod_group=group).first()
        assert template is not None
        for i in range(10):
            Pod.objects.create(
                namespace=group.namespace, name=f"bench-extra-{i}", pod_group=group,
                task_name=template.task_name, requests=template.requests,
                cpu_milli=template.cpu_milli, memory_milli=template.memory_milli,
                spec=template.spec, labels=template.labels,
            )  # fmt: skip
        for pod in Pod.objects.exclude(name__startswith="bench-extra-").order_by("-pk")[:5]:
            pod.delete()
    return "5 nodes cordoned, 10 pods created, 5 deleted"


def compare_reads() -> None:
    """Print a full read against the worker's incremental one, unchanged and after changes."""
    from django.utils import timezone

    from scheduler.cache import read_snapshot
    from scheduler.cache.row_cache import RowCache
    from scheduler.engine.util.gc_pause import no_automatic_gc

    now = timezone.now()
    cache = RowCache()
    with no_automatic_gc():
        fulls = []
        for _ in range(2):  # the worker's first read is full too: the rows' part timed there
            cache.clear()
            fulls.append((*_timed(lambda: read_snapshot(now=now, cache=cache))[1:], cache.stats))
        full_best = min(fulls, key=lambda x: x[1])
        unchanged = []
        for _ in range(3):
            unchanged.append((*_timed(lambda: read_snapshot(now=now, cache=cache))[1:],
                              cache.stats))  # fmt: skip
        same = min(unchanged, key=lambda x: x[1])
        first_quiet = unchanged[0]  # builds the snapshot it keeps (``quiet_reads``), then copies
        unchanged_mode = cache.stats.mode
    what = _few_changes()
    with no_automatic_gc():
        _, wall, cpu = _timed(lambda: read_snapshot(now=now, cache=cache))
    stats = cache.stats
    full_rows, same_rows = full_best[2], same[2]
    print(
        f"    snapshot read (best of 2 full, 3 unchanged), wall / CPU ms:\n"
        f"      full {full_best[0] * 1000:.0f} / {full_best[1] * 1000:.0f}, of which rows "
        f"{full_rows.seconds * 1000:.0f} / {full_rows.cpu_seconds * 1000:.0f} "
        f"({full_rows.fetched} fetched)\n"
        f"      unchanged cluster, {unchanged_mode}: {same[0] * 1000:.0f} / "
        f"{same[1] * 1000:.0f} = {same[0] / full_best[0]:.0%} / {same[1] / full_best[1]:.0%} "
        f"of full; of which rows {same_rows.seconds * 1000:.1f} / "
        f"{same_rows.cpu_seconds * 1000:.1f} = {same_rows.seconds / full_rows.seconds:.1%} / "
        f"{same_rows.cpu_seconds / full_rows.cpu_seconds:.1%} of the full read's rows; the "
        f"first unchanged read (builds what the next ones copy) {first_quiet[0] * 1000:.0f} / "
        f"{first_quiet[1] * 1000:.0f}\n"
        f"      after {what}: {stats.mode} {wall * 1000:.0f} / {cpu * 1000:.0f} "
        f"= {wall / full_best[0]:.0%} / {cpu / full_best[1]:.0%}; rows "
        f"{stats.seconds * 1000:.1f} / {stats.cpu_seconds * 1000:.1f} ({stats.changes} "
        f"changes, {stats.fetched} rows fetched); load average {os.getloadavg()[0]:.2f}"
    )


def run_case(case: Any, *, reads: bool = False) -> dict[str, float]:
    """Load, then time one live session of ``case``; print and return its figures."""
    from django.utils import timezone

    from scheduler.cache import BindPipeline, apply_decisions, read_snapshot
    from scheduler.cache.wal import checkpoint_after
    from scheduler.engine import load_conf, run_session
    from scheduler.engine.api.types import TaskStatus
    from scheduler.engine.util.gc_pause import no_automatic_gc
    from scheduler.worker import bind_batch

    _empty()
    began = time.perf_counter()
    _load(case.build(), case.conf)
    _settle()
    load_s = time.perf_counter() - began
    conf = load_conf(case.conf)
    # As the worker's cycle does (``scheduler.worker.run_once``): no automatic garbage
    # collection from the read to the write, and SQLite's WAL checkpoint after the session.
    with no_automatic_gc(), checkpoint_after():
        c0, t0 = time.process_time(), time.perf_counter()
        snapshot = read_snapshot()
        c1, t1 = time.process_time(), time.perf_counter()
        pending = sum(j.count(TaskStatus.PENDING) for j in snapshot.cluster.jobs.values())
        # As the worker does: binds sent while the engine runs (PostgreSQL), the rest after it.
        now = timezone.now()
        with BindPipeline(snapshot, now=now, batch=bind_batch()) as binds:
            decisions = run_session(snapshot.cluster, conf, uid="bench", bind_listener=binds.add)
            c2, t2 = time.process_time(), time.perf_counter()
            applied = binds.finish(
                lambda written: apply_decisions(
                    snapshot, decisions, now=now, session_uid="bench", binds_written=written
                )
            )
        c3, t3 = time.process_time(), time.perf_counter()
    total = t3 - t0
    early = (
        f" ({binds.sent} binds sent during the engine"
        f"{'; a check failed, all redone after it' if binds.fell_back else ''})"
        if binds.sent
        else ""
    )
    actions = ", ".join(f"{k} {v * 1000:.0f}" for k, v in decisions.timings.actions.items())
    print(
        f"  {case.label}: {len(snapshot.cluster.nodes)} nodes, {len(snapshot.pods)} pods "
        f"(loaded in {load_s:.1f} s)\n"
        f"    session {total * 1000:.0f} ms = read {(t1 - t0) * 1000:.0f} + engine "
        f"{(t2 - t1) * 1000:.0f} ({actions}) + write {(t3 - t2) * 1000:.0f} ms{early}\n"
        f"    CPU {(c3 - c0) * 1000:.0f} ms = read {(c1 - c0) * 1000:.0f} + engine "
        f"{(c2 - c1) * 1000:.0f} + write {(c3 - c2) * 1000:.0f} ms (this process; the "
        f"database's own work is not in it), load average {os.getloadavg()[0]:.2f}\n"
        f"    bound {applied.bound} (refused {len(applied.skipped_binds)}), evicted "
        f"{applied.evicted}, pending pods given a reason {applied.pods_explained}, "
        f"{applied.bound / total if total else 0:.0f} pods/s, unschedulable jobs "
        f"{len(decisions.unschedulable)}, pending after {pending - applied.bound}, "
        f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )
    if reads:  # after the session: its changes do not alter the figures above
        compare_reads()
    return {"session": total, "cpu": c3 - c0, "read": t1 - t0, "engine": t2 - t1,
            "write": t3 - t2, "bound": applied.bound}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the chosen set on the chosen database and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", required=True, choices=sorted(TARGETS))
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_PG))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--case", default="", help="run only the cases whose label contains this text"
    )
    parser.add_argument(
        "--cases", default="", help="run only these cases, by exact label (XL/4,XL/2,XL)"
    )
    parser.add_argument(
        "--reads", action="store_true",
        help="before each session, print a full snapshot read against an incremental one",
    )  # fmt: skip
    parser.add_argument(
        "--no-change-stream", action="store_true",
        help="time the write-back without recording watch events (the cache's own cost)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    _setup(args.db, args.database_url)
    if args.no_change_stream:
        import scheduler.cache.rows
        import scheduler.cache.status

        # Rows still get new versions; only the events themselves are not inserted (on
        # PostgreSQL the insert is a CTE of the write: an unreferenced plain SELECT instead).
        for module, name in ((scheduler.cache.rows, "record_versions"),
                             (scheduler.cache.status, "record_rows")):  # fmt: skip
            setattr(module, name, lambda *a, **k: None)
        scheduler.cache.rows.versions_insert = lambda *a, **k: ("SELECT 1", [], ["id"])  # type: ignore[attr-defined]
    from bench.workloads import SETS
    from bench.xl import xl

    workload = {**SETS, "XL": xl}[args.set](args.seed)
    stream = "without" if args.no_change_stream else "with"
    print(f"{workload.name} through Django on {args.db}, {stream} the change stream "
          f"(seed {workload.seed}): {workload.note}")  # fmt: skip
    print(f"  target: {TARGETS[args.set]}")
    results: dict[str, dict[str, float]] = {}
    for case in workload.cases:
        chosen = case.label in args.cases.split(",") if args.cases else args.case in case.label
        if chosen:
            results[case.label] = run_case(case, reads=args.reads)
    sizes = [label for label in ("XL/4", "XL/2", "XL") if label in results]
    if len(sizes) > 1:
        print(f"  growth {' -> '.join(sizes)} (each step doubles every count):")
        for figure in ("session", "cpu", "read", "engine", "write"):
            values = [results[label][figure] for label in sizes]
            steps = ", ".join(f"x{b / a:.2f}" for a, b in itertools.pairwise(values))
            print(f"    {figure}: {' -> '.join(f'{v:.2f} s' for v in values)} ({steps})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
