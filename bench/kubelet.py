"""The simulated kubelet's tick: ``python bench/kubelet.py [--pods 10000] [--nodes 100] [--growth]``.

Writes ``--pods`` pods bound to ``--nodes`` nodes into a scratch SQLite database, then times
``kubelet.runtime.tick`` through one pod lifetime on a simulated clock: the tick that
acknowledges every bind, the one that starts every pod, ``--steady`` ticks where nothing is
due (the common case: every pod running), the tick that ends every pod, and, with
``--crash``, the tick where every container fails under ``OnFailure`` and the one that
restarts them after the back-off. Prints milliseconds per tick, wall and CPU. Nothing touches
the developer's own database.

``--growth`` runs the same at a quarter, a half and the whole of ``--pods`` and ``--nodes``
(each in a fresh process and database) and prints how the steady tick grows; issue 34's XL is
``--pods 200000 --nodes 20000 --growth`` (target: a steady tick ≤ 100 ms at full size).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _setup() -> None:
    os.environ.pop("REDIS_URL", None)
    os.environ.pop("DATABASE_URL", None)
    os.environ["VOLCANO_DATA_DIR"] = tempfile.mkdtemp(prefix="volcano-bench-kubelet-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def _load(pods: int, nodes: int, *, crash: bool) -> None:
    from core.models import Node, Pod
    from queues.models import PodGroup

    Node.objects.bulk_create(
        [
            Node(name=f"n{i}", allocatable={"cpu": 10**9}, capacity={"cpu": 10**9})
            for i in range(nodes)
        ]
    )
    node_pks = list(Node.objects.values_list("pk", flat=True))
    group = PodGroup.objects.create(namespace="default", name="bench", min_member=1)
    annotations = {"volcano.sh/sim-duration": "60s"}
    spec: dict[str, object] = {"containers": [{"name": "main", "image": "busybox"}]}
    if crash:
        annotations["volcano.sh/sim-exit-code"] = "1"
        spec["restartPolicy"] = "OnFailure"
    Pod.objects.bulk_create(
        [
            Pod(
                namespace="default",
                name=f"p{i}",
                pod_group=group,
                task_name="t",
                task_index=i,
                node_id=node_pks[i % len(node_pks)],
                annotations=annotations,
                spec=spec,
                requests={"cpu": 100},
                cpu_milli=100,
            )
            for i in range(pods)
        ],
        batch_size=2000,
    )


def _timed(label: str, at: object, config: object) -> tuple[float, float]:
    from kubelet.runtime import tick

    started, cpu = time.perf_counter(), time.process_time()
    result = tick(now=at, config=config)  # type: ignore[arg-type]
    ms = (time.perf_counter() - started) * 1000
    cpu_ms = (time.process_time() - cpu) * 1000
    print(f"  {label:<28} {ms:8.1f} ms wall {cpu_ms:8.1f} ms CPU   {result}")
    return ms, cpu_ms


def _growth(args: argparse.Namespace) -> int:
    """Run each quarter, half and whole size in its own process; print the steady ticks."""
    rows = []
    for share in (4, 2, 1):
        pods, nodes = args.pods // share, max(1, args.nodes // share)
        command = [sys.executable, __file__, "--pods", str(pods), "--nodes", str(nodes),
                   "--steady", str(args.steady)] + (["--crash"] if args.crash else [])  # fmt: skip
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        print(out, end="")
        wall, cpu = next(
            (float(line.split()[1]), float(line.split()[2]))
            for line in out.splitlines()
            if line.startswith("STEADY ")
        )
        rows.append((f"1/{share}" if share > 1 else "full", pods, nodes, wall, cpu))
    print("growth of the steady tick (median):")
    base = rows[0][3] or 1.0
    for label, pods, nodes, wall, cpu in rows:
        print(f"  {label:<5} {pods:>7} pods {nodes:>6} nodes  {wall:7.1f} ms wall "
              f"{cpu:7.1f} ms CPU  x{wall / base:.2f}")  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--steady", type=int, default=5)
    parser.add_argument("--crash", action="store_true")
    parser.add_argument("--growth", action="store_true", help="1/4, 1/2 and the full size")
    args = parser.parse_args(argv)
    if args.growth:
        return _growth(args)
    _setup()
    from django.utils import timezone

    from kubelet.runtime import RuntimeSettings

    _load(args.pods, args.nodes, crash=args.crash)
    config = RuntimeSettings(start_delay=1.0, default_duration=30.0, speed=1.0)
    t0 = timezone.now()
    print(f"kubelet tick, {args.pods} pods on {args.nodes} nodes (SQLite)")
    _timed("acknowledge binds", t0, config)
    _timed("start pods", t0 + timedelta(seconds=1), config)
    steady = [
        _timed(f"steady #{i + 1}", t0 + timedelta(seconds=2 + i), config)
        for i in range(args.steady)
    ]
    wall = statistics.median(ms for ms, _ in steady)
    cpu = statistics.median(ms for _, ms in steady)
    print(f"  steady median: {wall:.1f} ms wall, {cpu:.1f} ms CPU")
    _timed("end (or crash) every pod", t0 + timedelta(seconds=61), config)
    if args.crash:
        _timed("restart after back-off", t0 + timedelta(seconds=71), config)
    print(f"STEADY {wall:.1f} {cpu:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
