"""Console at XL: ``python bench/console_xl.py`` (``--scale 1``, ``--scales 0.25,0.5,1``).

Issue 34's fifth target. Stores the XL cluster (``bench/xl.py``'s shapes) as rows in a scratch
database: 20,000 nodes of three sizes in three zones (8 GPUs on every tenth), 100 queues, 5,000
jobs of 40 pods (200,000 pods) in ten namespaces, half of them running (five pods per node),
half waiting by ``xl.MIX`` (small, medium, GPU), plus one running job of 1,000 pods with an
event per pod; every row written with ``bulk_create``. Then one real scheduling cycle
(``scheduler.worker.run_once``, the controllers left out) stores what the worker keeps for the
pages (queue shares and waiting lines, node loads, the session record, a history sample), and
a week of recorded history (``bench/metrics_pages.py``'s) feeds the Metrics charts.

Then times in process (server time: the whole Django stack, no network) the Overview, the jobs
list and each filter (namespace, queue, phase, search), the 1,000-pod job's page and its live
fragment, the Nodes list and its heat map fragment, a queue's page and its fragments, the
Metrics page and every chart's data. Prints p50/p95 of wall time and of this process' CPU time
(the machine is shared: wall time includes waiting for a core) and the queries per page; the
budget is p95 ≤ 200 ms. ``--scale`` shrinks every count (nodes, queues, jobs; the big job
stays 1,000 pods); ``--scales 0.25,0.5,1`` runs each size in its own process and prints how
each page's time and queries grow. Databases: SQLite in a temporary directory by default,
``--database-url postgres://postgres@127.0.0.1:5432/volcano_consolexl_bench`` (dropped and
created afresh). Exits 1 when a p95 is over budget. Not run by ``make test``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import percentile, timed  # noqa: E402

BUDGET_MS = 200.0
NODES, QUEUES, JOBS, PODS_PER_JOB, BIG = 20_000, 100, 5_000, 40, 1_000
NAMESPACES = 10
ZONES = ("zone-a", "zone-b", "zone-c")
GI = 1024**3 * 1000
GPU = "nvidia.com/gpu"
SHAPES = {  # cpu, memory (milli), gpu (milli): bench/builders.py's pod shapes
    "small": (1000, 1 * GI, 0),
    "medium": (4000, 16 * GI, 0),
    "gpu": (8000, 64 * GI, 1000),
}
MIX = ((0.6, "small"), (0.3, "medium"), (0.1, "gpu"))
BATCH = 5000


def _setup(database_url: str) -> None:
    """Point Django at a fresh scratch database (SQLite by default) and migrate it."""
    os.environ.pop("REDIS_URL", None)
    os.environ["VOLCANO_DATA_DIR"] = tempfile.mkdtemp(prefix="volcano-console-xl-")
    if database_url:
        import psycopg

        base, _, name = database_url.rpartition("/")
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        os.environ["DATABASE_URL"] = database_url
    else:
        os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _kind(rng: random.Random) -> str:
    roll, acc = rng.random(), 0.0
    for share, kind in MIX:
        acc += share
        if roll < acc:
            return kind
    return MIX[-1][1]


def seed(scale: float) -> dict[str, int]:
    """Store the XL cluster at ``scale``; return its counts."""
    from django.db import transaction
    from django.utils import timezone

    from core.models import Event, Namespace, Node, Pod
    from jobs.models import Job, TaskSpec
    from queues.models import PodGroup, Queue

    rng = random.Random(34)
    nodes, queues, jobs = int(NODES * scale), max(int(QUEUES * scale), 1), int(JOBS * scale)
    now = timezone.now()
    template = {"spec": {"containers": [{"name": "main", "image": "busybox"}]}}
    with transaction.atomic():
        Namespace.objects.bulk_create(Namespace(name=f"team-{n}") for n in range(NAMESPACES))
        node_rows = []
        for i in range(nodes):
            cpus = (16, 32, 64)[i % 3]
            alloc = {"cpu": cpus * 1000, "memory": cpus * 4 * GI, "pods": 110_000}
            if i % 10 == 0:
                alloc[GPU] = 8000
            name = f"xl-{i:05d}"
            node_rows.append(Node(name=name, allocatable=alloc, capacity=alloc, labels={
                "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": ZONES[(i // 3) % 3],
                "node.kubernetes.io/instance-type": f"m.{cpus}x"}))  # fmt: skip
        Node.objects.bulk_create(node_rows, batch_size=2000)
        node_pks = list(Node.objects.order_by("name").values_list("pk", flat=True))
        Queue.objects.bulk_create(Queue(name=f"q{i}", weight=1 + i % 4) for i in range(queues))
        job_rows, kinds = [], []
        for j in range(jobs):
            running = j < jobs // 2
            kind = "small" if running else _kind(rng)
            kinds.append(kind)
            job_rows.append(Job(
                namespace=f"team-{j % NAMESPACES}", name=f"{kind}-{j:05d}", queue=f"q{j % queues}",
                min_available=PODS_PER_JOB, phase="Running" if running else "Pending",
                running=PODS_PER_JOB if running else 0, pending=0 if running else PODS_PER_JOB,
                labels={"team": f"t{j % 10}"}, created_at=now,
            ))  # fmt: skip
        job_rows.append(Job(namespace="team-0", name="big", queue="q0", min_available=BIG,
                            phase="Running", running=BIG, created_at=now))  # fmt: skip
        kinds.append("small")
        job_rows = Job.objects.bulk_create(job_rows, batch_size=2000)
        TaskSpec.objects.bulk_create(
            (TaskSpec(job=job, index=0, name="worker", replicas=job.min_available,
                      template=template) for job in job_rows),
            batch_size=2000,
        )  # fmt: skip
        groups = PodGroup.objects.bulk_create(
            (PodGroup(namespace=job.namespace, name=f"{job.name}-pg", job=job, queue=job.queue,
                      min_member=job.min_available,
                      phase="Running" if job.phase == "Running" else "Pending")
             for job in job_rows),
            batch_size=2000,
        )  # fmt: skip
        pods: list[Pod] = []
        placed = 0
        written = 0
        for job, group, kind in zip(job_rows, groups, kinds, strict=True):
            cpu, memory, gpu = SHAPES[kind]
            requests = {"cpu": cpu, "memory": memory} | ({GPU: gpu} if gpu else {})
            running = job.phase == "Running"
            for p in range(job.min_available):
                node = None
                if running:
                    node = node_pks[placed % len(node_pks)]
                    placed += 1
                pods.append(Pod(
                    namespace=job.namespace, name=f"{job.name}-worker-{p}", job=job,
                    pod_group=group, task_name="worker", task_index=p, spec=template["spec"],
                    requests=requests, cpu_milli=cpu, memory_milli=memory, gpu_milli=gpu,
                    node_id=node, phase="Running" if running else "Pending",
                    start_time=now if running else None, created_at=now,
                ))  # fmt: skip
            if len(pods) >= BATCH:
                Pod.objects.bulk_create(pods)
                written += len(pods)
                pods = []
        Pod.objects.bulk_create(pods)
        written += len(pods)
        Event.objects.bulk_create(
            (Event(namespace="team-0", involved_kind="Pod", involved_namespace="team-0",
                   involved_name=f"big-worker-{i}", reason="Scheduled", source="volcano",
                   message=f"Successfully assigned team-0/big-worker-{i} to xl-{i:05d}",
                   first_timestamp=now, last_timestamp=now) for i in range(BIG)),
            batch_size=2000,
        )  # fmt: skip
        Event.objects.bulk_create(
            (Event(namespace=job.namespace, involved_kind="Job", involved_namespace=job.namespace,
                   involved_name=job.name, reason="PodGroupPending", source="vc-controller-manager",
                   message="PodGroup is pending", first_timestamp=now, last_timestamp=now)
             for job in job_rows if job.phase == "Pending"),
            batch_size=2000,
        )  # fmt: skip
    return {"nodes": nodes, "queues": queues, "jobs": jobs + 1, "pods": written}


def _settle() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")


def _one_session() -> str:
    """Run one scheduling cycle (no controllers) so the pages find what the worker stores."""
    from scheduler.worker import run_once

    started = time.perf_counter()
    summary = run_once(reconcile=False, worker="bench")
    applied = summary.applied
    bound = applied.bound if applied is not None else 0
    return f"one session: {bound} bound in {time.perf_counter() - started:.1f} s" + (
        f" (error: {summary.error})" if summary.error else ""
    )


def cases(scale: float) -> list[tuple[str, str, str]]:
    """Return (label, URL, HX-Target) of every timed page."""
    from monitoring.panels import PANELS

    queue = f"q{max(int(QUEUES * scale), 1) // 2}"
    zone = "topology.kubernetes.io/zone"
    out = [
        ("overview", "/", ""),
        ("overview: waiting jobs", "/", "overview-waiting"),
        ("overview: queues", "/", "overview-queues"),
        ("overview: capacity", "/", "overview-capacity"),
        ("overview: pod issues", "/", "overview-pod-issues"),
        ("jobs list", "/jobs/?namespace=", ""),
        ("jobs list: table", "/jobs/?namespace=", "jobs-table"),
        ("jobs list: namespace", "/jobs/?namespace=team-3", "jobs-table"),
        ("jobs list: queue", f"/jobs/?namespace=&queue={queue}", "jobs-table"),
        ("jobs list: phase Pending", "/jobs/?namespace=&phase=Pending", "jobs-table"),
        ("jobs list: phase Running", "/jobs/?namespace=&phase=Running", "jobs-table"),
        ("jobs list: search", "/jobs/?namespace=&q=medium-04", "jobs-table"),
        ("jobs list: all filters", f"/jobs/?namespace=team-1&queue={queue}&phase=Pending&q=0",
         "jobs-table"),
        ("jobs list: by queue, page 20", "/jobs/?namespace=&group=queue&page=20", "jobs-table"),
        ("jobs list: sort name, last page", "/jobs/?namespace=&sort=-name&page=1000",
         "jobs-table"),
        (f"job of {BIG} pods", "/jobs/team-0/big/", ""),
        (f"job of {BIG} pods: fragment", "/jobs/team-0/big/", "job-body"),
        ("pods list", "/pods/?namespace=", ""),
        ("nodes list", "/nodes/", ""),
        ("nodes list: table", "/nodes/", "nodes-table"),
        ("nodes list: heat map", "/nodes/", "nodes-heatmap"),
        ("nodes list: heat map by name", "/nodes/?group=", "nodes-heatmap"),
        ("nodes list: sort by cpu", "/nodes/?sort=-cpu", "nodes-table"),
        ("nodes list: one zone", f"/nodes/?group={zone}&in=zone-b", ""),
        ("node page", "/nodes/xl-00042/", ""),
        ("queues list", "/queues/", ""),
        ("queue page", f"/queues/{queue}/", ""),
        ("queue page: body", f"/queues/{queue}/", "queue-body"),
        ("queue page: its jobs", f"/queues/{queue}/jobs/", ""),
        ("queue page: its history", f"/queues/{queue}/history/", ""),
    ]  # fmt: skip
    for section in dict.fromkeys(p.section for p in PANELS):
        out.append((f"metrics: {section}", f"/monitoring/?section={section}&range=1h", ""))
    for panel in PANELS:
        for span in ("1h", "7d"):
            out.append((f"chart {panel.name} {span}",
                        f"/monitoring/charts/{panel.name}/?range={span}&section={panel.section}", ""))  # fmt: skip
    return out


def run(scale: float, runs: int, database_url: str, only: str) -> list[dict[str, Any]]:
    """Seed at ``scale``, time every page, print and return the figures."""
    _setup(database_url)
    from django.contrib.auth.models import Group, User
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.utils import timezone

    from bench.metrics_pages import _build_week

    setup_test_environment()
    started = time.perf_counter()
    counts = seed(scale)
    _settle()
    print(f"XL x{scale:g} on {connection.vendor}: stored {counts['nodes']:,} nodes, "
          f"{counts['queues']} queues, {counts['jobs']:,} jobs, {counts['pods']:,} pods "
          f"in {time.perf_counter() - started:.1f} s", flush=True)  # fmt: skip
    print(_one_session(), flush=True)
    started = time.perf_counter()
    rows = _build_week(timezone.now())
    _settle()
    print(f"a week of history: {rows:,} rows in {time.perf_counter() - started:.1f} s", flush=True)
    gc.collect()
    gc.freeze()  # as the server does once set up (volcano_site.startup)
    user = User.objects.create_user("bench")
    user.groups.add(Group.objects.get(name="operator"))
    client = Client()
    client.force_login(user)
    # Stored loads are trusted for a while (scheduler.load_status): keep them fresh, untimed.
    from core.models import NodeLoadStamp

    print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'page':<40}{'p50 ms':>8}{'p95 ms':>8}{'CPU p50':>9}{'CPU p95':>9}"
          f"{'queries':>9}{'KiB':>7}")  # fmt: skip
    results = []
    for label, url, target in cases(scale):
        if only and only not in label:
            continue
        headers = {"HX-Request": "true", "HX-Target": target} if target else {}
        size = [0]

        def call(url: str = url, headers: dict[str, str] = headers, size: list[int] = size) -> None:
            response = client.get(url, headers=headers)
            assert response.status_code == 200, (url, response.status_code)
            size[0] = len(response.content)

        NodeLoadStamp.objects.update(stored_at=timezone.now())
        wall, cpu, queries = timed(call, runs)
        row: dict[str, Any] = {
            "label": label, "url": url, "target": target, "p50": statistics.median(wall),
            "p95": percentile(wall, 0.95), "cpu50": statistics.median(cpu),
            "cpu95": percentile(cpu, 0.95), "queries": queries, "kib": size[0] / 1024,
        }  # fmt: skip
        results.append(row)
        flag = "  OVER" if row["p95"] > BUDGET_MS else ""
        print(f"{label:<40}{row['p50']:>8.1f}{row['p95']:>8.1f}{row['cpu50']:>9.1f}"
              f"{row['cpu95']:>9.1f}{queries:>9}{row['kib']:>7.0f}{flag}", flush=True)  # fmt: skip
    return results


def _growth(scales: list[float], args: argparse.Namespace) -> int:
    """Run each scale in its own process; print how each page's p95 and queries grow."""
    tables = []
    for scale in scales:
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            command = [sys.executable, __file__, "--scale", str(scale), "--runs", str(args.runs),
                       "--json", out.name, "--only", args.only]  # fmt: skip
            if args.database_url:
                command += ["--database-url", args.database_url]
            subprocess.run(command, check=False)
            tables.append({r["label"]: r for r in json.loads(Path(out.name).read_text() or "[]")})
    print(
        "\ngrowth of p95 wall / p95 CPU (ms) and queries, by scale " + " → ".join(map(str, scales))
    )
    over = False
    for label in tables[-1]:
        cells = []
        for table in tables:
            r = table.get(label)
            cells.append(f"{r['p95']:6.1f}/{r['cpu95']:6.1f} q{r['queries']:<3}" if r else "-")
        over |= tables[-1][label]["p95"] > BUDGET_MS
        print(f"{label:<40}" + "  ".join(cells))
    return 1 if over else 0


def main(argv: list[str] | None = None) -> int:
    """Seed, time and print; exit 1 when a budget is exceeded."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--scales", default="", help="e.g. 0.25,0.5,1: one process per size")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--only", default="", help="time only the pages whose label has this")
    parser.add_argument("--json", default="", help="write the figures to this file")
    args = parser.parse_args(argv)
    if args.scales:
        return _growth([float(s) for s in args.scales.split(",")], args)
    results = run(args.scale, args.runs, args.database_url, args.only)
    if args.json:
        Path(args.json).write_text(json.dumps(results))
    return 1 if any(r["p95"] > BUDGET_MS for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
