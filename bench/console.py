"""Console pages benchmark: ``python bench/console.py`` (``--jobs 10000 --pods 100000``).

Stores N jobs and M pods (``bench/api.py``'s seed) plus one job of 1,000 pods in a fresh
SQLite database, then times in process (server time: the whole Django stack, no network)
the Overview, the jobs list with several filters and the 1,000-pod job's page, each as a
full page and as the live fragment a refresh asks for. Budget: p95 ≤ 200 ms. Then opens 50
live sockets (Channels' in-memory layer, the embedded default) and times how long one change
takes to reach all of them (budget 1 s). Prints figures; exits 1 when a budget is exceeded.
Not run by ``make test``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import percentile, seed, setup_django, timed  # noqa: E402

BUDGET_MS = 200.0
SOCKETS = 50


def _big_job(pods: int) -> None:
    """Store job ``big`` with ``pods`` pods and their events (the detail page's worst case)."""
    from django.utils import timezone

    from core.models import Event, Pod
    from jobs.models import Job, TaskSpec

    job = Job.objects.create(namespace="default", name="big", min_available=pods, phase="Running")
    TaskSpec.objects.create(job=job, index=0, name="worker", replicas=pods, template={})
    now = timezone.now()
    Pod.objects.bulk_create(
        Pod(namespace="default", name=f"big-worker-{i}", job=job, task_name="worker",
            task_index=i, phase="Running", start_time=now,
            spec={"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "60"]}]})
        for i in range(pods)
    )  # fmt: skip
    Event.objects.bulk_create(
        Event(namespace="default", involved_kind="Pod", involved_namespace="default",
              involved_name=f"big-worker-{i}", reason="Scheduled", source="volcano",
              message=f"Successfully assigned default/big-worker-{i} to node-{i % 50}",
              first_timestamp=now, last_timestamp=now)
        for i in range(pods)
    )  # fmt: skip


async def _fan_out(user: Any) -> float:
    """Open ``SOCKETS`` sockets, publish one change, return seconds until all heard it."""
    from channels.routing import URLRouter
    from channels.testing import WebsocketCommunicator

    from console import live
    from console.routing import websocket_urlpatterns

    sockets = []
    for _ in range(SOCKETS):
        socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/live/")
        socket.scope["user"] = user
        connected, _code = await socket.connect()
        assert connected
        sockets.append(socket)
    await asyncio.sleep(0.5)
    started = time.perf_counter()
    await asyncio.to_thread(live.publish, ["jobs.job@default"])
    await asyncio.gather(*(s.receive_json_from(timeout=5) for s in sockets))
    elapsed = time.perf_counter() - started
    for socket in sockets:
        await socket.disconnect()
    return elapsed


def main() -> int:
    """Seed, time and print; exit 1 when a budget is exceeded."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--big", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="volcano-bench-") as data_dir:
        setup_django(data_dir)
        from django.contrib.auth.models import Group, User
        from django.test import Client
        from django.test.utils import setup_test_environment

        setup_test_environment()
        started = time.perf_counter()
        seed(args.jobs, args.pods)
        _big_job(args.big)
        print(f"stored {args.jobs} jobs, {args.pods} pods and a {args.big}-pod job "
              f"in {time.perf_counter() - started:.1f} s")  # fmt: skip
        gc.collect()
        gc.freeze()
        user = User.objects.create_user("bench")
        user.groups.add(Group.objects.get(name="operator"))
        client = Client()
        client.force_login(user)

        def page(url: str, target: str = "") -> Any:
            headers = {"HX-Request": "true", "HX-Target": target} if target else {}

            def call() -> None:
                assert client.get(url, headers=headers).status_code == 200

            return call

        cases = [
            ("overview", page("/")),
            ("overview: waiting jobs", page("/", "overview-waiting")),
            ("jobs list", page("/jobs/")),
            ("jobs list: phase filter", page("/jobs/?phase=Running", "jobs-table")),
            ("jobs list: search", page("/jobs/?q=job-0042", "jobs-table")),
            ("jobs list: sort by name", page("/jobs/?sort=-name&page=20", "jobs-table")),
            (f"job of {args.big} pods", page("/jobs/default/big/")),
            (f"job of {args.big} pods: fragment", page("/jobs/default/big/", "job-body")),
        ]
        failed = False
        print(f"{'page':<32}{'p50 ms':>8}{'p95 ms':>8}{'max ms':>8}{'budget':>8}{'queries':>9}")
        for label, call in cases:
            wall, _cpu, queries = timed(call, args.runs)
            p95 = percentile(wall, 0.95)
            failed |= p95 > BUDGET_MS
            print(f"{label:<32}{statistics.median(wall):>8.1f}{p95:>8.1f}{max(wall):>8.1f}"
                  f"{BUDGET_MS:>8.0f}{queries:>9}")  # fmt: skip
        seconds = asyncio.run(_fan_out(user))
        failed |= seconds > 1.0
        print(f"one change reached {SOCKETS} open sockets in {seconds * 1000:.0f} ms (budget 1000)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
