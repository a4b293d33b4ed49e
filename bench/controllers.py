"""The controllers at XL: ``python bench/controllers.py [--jobs 5000] [--pods-per-job 40] [--growth]``.

Two measurements, each in a scratch SQLite database (nothing touches the developer's own):

**Idle pass** (issue 34, target 6: ≤ 100 ms with 200,000 pods stored). ``--jobs`` Volcano jobs
of one task of ``--pods-per-job`` replicas are submitted through admission (``job_submit``),
taken to Running as the system would (the job controller creates each PodGroup; the scheduler's
part, admitting the PodGroups and binding, and the kubelet's, starting the pods, are played by
set-wise writes recorded on the change stream), until a pass changes nothing. Then it times
``--passes`` job-controller passes (``jobs.controller.reconcile_all``) with nothing to do, and
one after a single pod of one job failed (that job must be reconciled in that pass). Prints
milliseconds per pass, wall and CPU. ``--growth`` runs a quarter, a half and the whole size,
each in its own process, and prints how the idle pass grows.

**Burst** (``--burst 1000``; target: 1,000 jobs submitted at once all Running within 10
simulated seconds). Over ``--nodes`` nodes, ``--burst`` jobs of ``--burst-pods`` pods are
submitted at once, then the embedded loop's cycle runs on a simulated clock, one period at a
time, as ``scheduler.worker`` runs it: the node runtimes tick (the simulated kubelet), the
registered controllers reconcile, and one scheduling session runs (``run_once``). It prints,
per cycle, the jobs Running and the cycle's wall and CPU time, then the simulated time (cycles
* period) and the real time until every job was Running.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _setup() -> None:
    os.environ.pop("REDIS_URL", None)
    os.environ.pop("DATABASE_URL", None)
    os.environ["VOLCANO_DATA_DIR"] = tempfile.mkdtemp(prefix="volcano-bench-controllers-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")
    # Imported once the environment names the scratch database.
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def _manifest(
    name: str, replicas: int, *, cpu: str = "100m", duration: str = "1h"
) -> dict[str, Any]:
    container = {
        "name": "main",
        "image": "busybox",
        "command": ["sleep", duration],
        "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}},
    }
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "minAvailable": replicas,
            "schedulerName": "volcano",
            "queue": "default",
            "tasks": [
                {
                    "name": "worker",
                    "replicas": replicas,
                    "template": {"spec": {"containers": [container], "restartPolicy": "Never"}},
                }
            ],
        },
    }


def _submit(count: int, replicas: int, prefix: str = "job", **shape: str) -> float:
    """Submit ``count`` jobs through admission; return the seconds it took."""
    # Imported after django.setup().
    from core.models import Namespace
    from jobs.services import job_submit

    Namespace.objects.get_or_create(name="default")
    started = time.perf_counter()
    for i in range(count):
        job_submit(manifest=_manifest(f"{prefix}-{i:05d}", replicas, **shape))
    return time.perf_counter() - started


def _play(now: datetime) -> None:
    """Play the scheduler and the kubelet for every job: PodGroups admitted, pods Running."""
    # Imported after django.setup().
    from django.db import transaction

    from core.models import Pod
    from kube.changes import record_rows
    from queues.models import PodGroup

    with transaction.atomic():
        groups = list(PodGroup.objects.filter(phase="Pending").values_list("pk", flat=True))
        PodGroup.objects.filter(pk__in=groups).update(phase="Inqueue")
        record_rows(PodGroup, groups)
        pods = list(Pod.objects.filter(phase="Pending").values_list("pk", flat=True))
        for start in range(0, len(pods), 20_000):
            chunk = pods[start : start + 20_000]
            Pod.objects.filter(pk__in=chunk).update(
                phase="Running", start_time=now, running_since=now, task_status=""
            )
            record_rows(Pod, chunk)


def _pass(now: datetime) -> tuple[float, float, object]:
    # Imported after django.setup().
    from jobs.controller import reconcile_all

    wall, cpu = time.perf_counter(), time.process_time()
    report = reconcile_all(now)
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, report


def idle(args: argparse.Namespace) -> int:
    """Load the jobs, settle them, time the passes with nothing to do."""
    _setup()
    # Imported after django.setup().
    from django.db import transaction

    from core.models import Pod
    from jobs.models import Job
    from kube.changes import record_rows

    pods = args.jobs * args.pods_per_job
    print(f"job controller, {args.jobs} jobs x {args.pods_per_job} pods = {pods} pods (SQLite)")
    print(f"  submitted in {_submit(args.jobs, args.pods_per_job):.1f} s")
    now = datetime(2026, 1, 1, 12, tzinfo=__import__("datetime").UTC)
    load = time.perf_counter()
    for step in range(8):
        now += timedelta(seconds=1)
        wall, cpu, report = _pass(now)
        _play(now)
        print(f"  settling pass {step + 1}: {wall:8.1f} ms wall {cpu:8.1f} ms CPU "
              f"({report.jobs} jobs reconciled, {report.pods_created} pods created)")  # type: ignore[attr-defined]  # fmt: skip
        if not report.changed and step > 0:  # type: ignore[attr-defined]
            break
    running = Job.objects.filter(phase="Running").count()
    print(f"  settled in {time.perf_counter() - load:.1f} s: {running} jobs Running, "
          f"{Pod.objects.count()} pods")  # fmt: skip
    idle_passes = []
    for i in range(args.passes):
        now += timedelta(seconds=1)
        wall, cpu, report = _pass(now)
        idle_passes.append((wall, cpu))
        print(f"  idle pass #{i + 1:<3} {wall:8.1f} ms wall {cpu:8.1f} ms CPU "
              f"({report.jobs} reconciled, changed: {report.changed})")  # type: ignore[attr-defined]  # fmt: skip
    wall = statistics.median(w for w, _ in idle_passes)
    cpu = statistics.median(c for _, c in idle_passes)
    print(f"  idle median: {wall:.1f} ms wall, {cpu:.1f} ms CPU")
    victim = Pod.objects.order_by("pk").values_list("pk", "job__name").first()
    assert victim is not None
    with transaction.atomic():
        Pod.objects.filter(pk=victim[0]).update(phase="Failed", exit_code=1, finish_time=now)
        record_rows(Pod, [victim[0]])
    now += timedelta(seconds=1)
    one_wall, one_cpu, report = _pass(now)
    print(f"  one pod failed: {one_wall:8.1f} ms wall {one_cpu:8.1f} ms CPU "
          f"({report.jobs} reconciled; {victim[1]} among them: "  # type: ignore[attr-defined]
          f"{f'default/{victim[1]}' in report.changed_jobs})")  # type: ignore[attr-defined]  # fmt: skip
    print(f"IDLE {wall:.1f} {cpu:.1f}")
    return 0


def burst(args: argparse.Namespace) -> int:
    """Submit ``--burst`` jobs at once; run the embedded loop's cycle until all are Running."""
    _setup()
    # Imported after django.setup().
    from datetime import UTC

    from django.utils import timezone

    from core.models import Node
    from core.network import allocate_node_networks
    from jobs.models import Job
    from kube import registry
    from kubelet.runtime import RuntimeSettings, tick
    from scheduler.worker import run_once

    alloc = {"cpu": 32_000, "memory": 128 * 1024**3 * 1000, "pods": 110_000}
    Node.objects.bulk_create(
        Node(name=f"n{i:05d}", allocatable=alloc, capacity=alloc, labels={})
        for i in range(args.nodes)
    )
    allocate_node_networks()  # a running cluster's nodes have their pod ranges already
    config = RuntimeSettings.from_settings()
    period = args.period
    print(f"burst: {args.burst} jobs x {args.burst_pods} pods at once on {args.nodes} nodes "
          f"(SQLite; period {period:g} s, kubelet start delay {config.start_delay:g} s, "
          f"speed {config.speed:g})")  # fmt: skip
    submitted = _submit(args.burst, args.burst_pods, prefix="burst", cpu="1")
    print(f"  {args.burst} jobs submitted in {submitted:.1f} s (before the first cycle)")
    now = timezone.now().astimezone(UTC)
    stepped = paced = real = cpu_total = 0.0
    for cycle in range(1, args.max_cycles + 1):
        wall, cpu = time.perf_counter(), time.process_time()
        tick(now=now, config=config)  # the node runtimes' tick, then the cycle (run_leader_cycle)
        kubelet = time.perf_counter() - wall
        durations: dict[str, float] = {}
        for controller in registry.controllers():  # run_once's step 1, each one timed
            began = time.perf_counter()
            controller.reconcile(now)
            durations[controller.name] = time.perf_counter() - began
        began = time.perf_counter()
        summary = run_once(now=now, reconcile=False)
        session = time.perf_counter() - began
        took, took_cpu = time.perf_counter() - wall, time.process_time() - cpu
        slowest = sorted(durations.items(), key=lambda item: -item[1])[:2]
        real += took
        cpu_total += took_cpu
        stepped += period
        paced += max(period, took)  # the embedded loop waits out the period, or runs late
        running = Job.objects.filter(phase="Running").count()
        bound = summary.applied.bound if summary.applied is not None else 0
        print(f"  cycle {cycle:>2}: {running:>5} jobs Running, {bound:>6} pods bound   "
              f"{took * 1000:8.1f} ms wall {took_cpu * 1000:8.1f} ms CPU  (kubelet "
              f"{kubelet * 1000:.0f} ms, controllers {sum(durations.values()) * 1000:.0f} ms: "
              + ", ".join(f"{name} {sec * 1000:.0f}" for name, sec in slowest)
              + f"; session {session * 1000:.0f} ms)")  # fmt: skip
        if running >= args.burst:
            break
        now += timedelta(seconds=period)
    done = Job.objects.filter(phase="Running").count() >= args.burst
    print(f"  {'all' if done else 'NOT all'} {args.burst} jobs Running after {cycle} cycles: "
          f"{stepped * config.speed:.1f} simulated s on the stepped clock, "
          f"{paced * config.speed:.1f} simulated s at the cycles' own pace; "
          f"{real:.1f} s real ({cpu_total:.1f} s CPU)")  # fmt: skip
    print(
        f"BURST {stepped * config.speed:.1f} {paced * config.speed:.1f} {real:.1f} {cpu_total:.1f}"
    )
    return 0 if done else 1


def _growth(args: argparse.Namespace) -> int:
    rows = []
    for share in (4, 2, 1):
        jobs = max(1, args.jobs // share)
        command = [sys.executable, __file__, "--jobs", str(jobs), "--pods-per-job",
                   str(args.pods_per_job), "--passes", str(args.passes)]  # fmt: skip
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        print(out, end="")
        wall, cpu = next(
            (float(line.split()[1]), float(line.split()[2]))
            for line in out.splitlines()
            if line.startswith("IDLE ")
        )
        rows.append((f"1/{share}" if share > 1 else "full", jobs, wall, cpu))
    print("growth of the idle job-controller pass (median):")
    base = rows[0][2] or 1.0
    for label, jobs, wall, cpu in rows:
        print(f"  {label:<5} {jobs:>6} jobs {jobs * args.pods_per_job:>7} pods  {wall:7.1f} ms "
              f"wall {cpu:7.1f} ms CPU  x{wall / base:.2f}")  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=5_000)
    parser.add_argument("--pods-per-job", type=int, default=40)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--growth", action="store_true", help="1/4, 1/2 and the full size")
    parser.add_argument("--burst", type=int, default=0, help="jobs submitted at once")
    parser.add_argument("--burst-pods", type=int, default=4, help="pods per burst job")
    parser.add_argument("--nodes", type=int, default=1000, help="nodes of the burst")
    parser.add_argument("--period", type=float, default=1.0, help="scheduling period (s)")
    parser.add_argument("--max-cycles", type=int, default=30)
    args = parser.parse_args(argv)
    if args.burst:
        return burst(args)
    if args.growth:
        return _growth(args)
    return idle(args)


if __name__ == "__main__":
    sys.exit(main())
