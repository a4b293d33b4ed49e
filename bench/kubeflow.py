"""Kubeflow PyTorchJobs through the embedded worker: ``python bench/kubeflow.py [--jobs 1000]``.

Target (issue 19): 1,000 PyTorchJobs of 1 Master + 7 Workers (8,000 pods) submitted at once
are all Running within 10 s of simulated time on a cluster that fits them.

In a scratch SQLite database: 100 nodes (32 CPU, 256Gi, 110 pods: 11,000 pod slots), the
default queue, Volcano's default scheduler conf. The jobs are applied in one transaction as
``kubectl apply -f`` of a list would (admission, defaults, one row each). Then the cycle the
embedded worker runs each period (``run_leader_cycle``: the simulated kubelet's tick, the job
controllers, one scheduling session), on a simulated clock of one period per cycle (the
worker's default, 1 s; the kubelet's start delay 1 s), until every job's last condition is
Running. Printed: simulated seconds, cycles (= sessions), wall time in all and per cycle
split into kubelet / controllers / session, pods bound, and peak RSS.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_SECONDS = 10.0


def _setup() -> None:
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ["VOLCANO_DATA_DIR"] = tempfile.mkdtemp(prefix="volcano-bench-kubeflow-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def _manifest(index: int, workers: int) -> dict[str, Any]:
    def replica(count: int) -> dict[str, Any]:
        container = {
            "name": "pytorch",
            "image": "docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727",
            "command": ["sleep", "10m"],
            "resources": {"requests": {"cpu": "250m", "memory": "1Gi"}},
        }
        return {"replicas": count, "template": {"spec": {"containers": [container]}}}

    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": f"ptj-{index:04d}", "namespace": "default"},
        "spec": {
            "runPolicy": {"schedulingPolicy": {"queue": "default"}},
            "pytorchReplicaSpecs": {"Master": replica(1), "Worker": replica(workers)},
        },
    }


def _cluster(nodes: int) -> None:
    from core.models import (
        Node,
        PriorityClass,  # noqa: F401  (apps ready)
    )
    from core.namespaces import ensure_namespaces
    from queues.models import Queue

    amounts = {"cpu": 32_000, "memory": 256 * 1024**3 * 1000, "pods": 110_000}
    Node.objects.bulk_create(
        Node(name=f"node-{i:03d}", allocatable=amounts, capacity=amounts) for i in range(nodes)
    )
    Queue.objects.update(capability={})
    ensure_namespaces(["default"])


def _submit(count: int, workers: int) -> float:
    from django.db import transaction

    from kube.manifests import load_manifest

    started = time.perf_counter()
    with transaction.atomic():
        for index in range(count):
            loaded = load_manifest(_manifest(index, workers))
            loaded.kind.apply(loaded)
    return time.perf_counter() - started


def _states() -> dict[str, int]:
    from training.models import PyTorchJob

    counts: dict[str, int] = {}
    for conditions in PyTorchJob.objects.values_list("conditions", flat=True):
        state = conditions[-1]["type"] if conditions else "New"
        counts[state] = counts.get(state, 0) + 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=7)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--period", type=float, default=1.0, help="simulated seconds per cycle")
    parser.add_argument("--max-cycles", type=int, default=60)
    args = parser.parse_args()
    _setup()
    from core.models import Pod
    from kubelet import runtime
    from scheduler import worker
    from training.controller import reconcile_training_jobs

    _cluster(args.nodes)
    submit_wall = _submit(args.jobs, args.workers)
    pods = args.jobs * (1 + args.workers)
    print(f"submitted {args.jobs} PyTorchJobs ({pods} pods) in {submit_wall:.2f} s wall")
    settings = runtime.RuntimeSettings(start_delay=1.0, default_duration=600.0, speed=1.0)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    wall_total = 0.0
    splits = {"kubelet": 0.0, "controllers": 0.0, "session": 0.0}
    done_at: float | None = None
    for cycle in range(1, args.max_cycles + 1):
        now = start + timedelta(seconds=cycle * args.period)
        began = time.perf_counter()
        runtime.tick(now=now, config=settings)
        t1 = time.perf_counter()
        worker.reconcile_controllers(now)  # what run_once does first (step 1)
        t2 = time.perf_counter()
        summary = worker.run_once(now=now, reconcile=False)
        t3 = time.perf_counter()
        splits["kubelet"] += t1 - began
        splits["controllers"] += t2 - t1
        splits["session"] += t3 - t2
        wall_total += t3 - began
        states = _states()
        bound = Pod.objects.filter(node__isnull=False).count()
        print(f"cycle {cycle:2d} t={cycle * args.period:5.1f}s  wall {t3 - began:6.2f} s "
              f"(kubelet {t1 - began:.2f}, controllers {t2 - t1:.2f}, session {t3 - t2:.2f}; "
              f"bound {summary.applied.bound if summary.applied else 0})  pods on nodes {bound}  "
              f"states {states}", flush=True)  # fmt: skip
        if states.get("Running", 0) == args.jobs:
            done_at = cycle * args.period
            break
    reconcile_training_jobs  # noqa: B018  (imported for the record: the controller under test)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print()
    if done_at is None:
        print(f"NOT all Running after {args.max_cycles} cycles")
    else:
        verdict = "PASS" if done_at <= TARGET_SECONDS else "FAIL"
        print(f"all {args.jobs} PyTorchJobs Running at t={done_at:.1f} s simulated "
              f"(target <= {TARGET_SECONDS:.0f} s): {verdict}")  # fmt: skip
    print(f"cycles (sessions): {cycle}; wall {wall_total:.2f} s in cycles "
          f"(kubelet {splits['kubelet']:.2f}, controllers {splits['controllers']:.2f}, "
          f"sessions {splits['session']:.2f}); submit {submit_wall:.2f} s; peak RSS {rss:.0f} MiB")  # fmt: skip


if __name__ == "__main__":
    main()
