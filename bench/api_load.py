"""The API under load, on PostgreSQL, through real HTTP: ``python bench/api_load.py --database-url URL``.

Two modes (issue 34, target 4), each against its own PostgreSQL database:

- default (load): the server run as ``manage.py serve --workers N`` (the distributed
  mode's default) with the scheduler running beside it (``--scheduler celery``: a Celery
  worker and beat, the distributed mode's; ``loop``: ``manage.py run_scheduler``; ``none``),
  and ``--clients`` concurrent clients (asyncio, one keep-alive connection each) creating,
  getting, listing and deleting Volcano Jobs with a bearer token for ``--duration`` seconds.
  Every client creates a job, gets it, lists a page of 100, and deletes every second job
  it created. Prints requests/s, p50/p95/max per verb, the 5xx count, the CPU seconds of the
  server processes beside the wall time, then counts every object: each job created and not
  deleted must be stored, each deleted one gone (nothing lost).
- ``--list``: 200,000 pods stored; times ``GET /api/v1/pods?limit=500`` and every following
  ``continue`` page through the server (one worker), at 1/4, 1/2 and the full count.
- watches: ``python -m bench.watches`` (1,000 streaming watches on one server process).

``--root DIR`` serves another checkout's code (a worktree of the base commit: before/after);
``--plain-daphne`` runs one bare daphne as the README did before ``serve``. Not run by
``make test``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

JOBS = "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
PODS = "/api/v1/pods"
SERVER_ENV = {"DEBUG": "0", "LOG_LEVEL": "WARNING", "VOLCANO_SIM_SPEED": "10"}


def free_port() -> int:
    """Return a TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def setup_django(database_url: str, redis_url: str) -> None:
    """Point this process at the database, migrate it, start Django."""
    os.environ["DATABASE_URL"] = database_url
    os.environ["REDIS_URL"] = redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def bench_token() -> str:
    """Return a bearer token of an operator (created once per run)."""
    from django.contrib.auth.models import Group, User

    from accounts.services import token_create

    user, _ = User.objects.get_or_create(username="api-load")
    user.groups.add(Group.objects.get(name="operator"))
    _, token = token_create(user=user, name=f"api-load-{uuid.uuid4().hex[:6]}")
    return token


class Processes:
    """The server and scheduler subprocesses of one run; CPU seconds read from /proc."""

    def __init__(self, root: Path, env: dict[str, str], log_dir: Path) -> None:
        self.root = root
        self.env = env
        self.log_dir = log_dir
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, command: list[str]) -> subprocess.Popen[bytes]:
        log = (self.log_dir / f"{name}.log").open("wb")
        process = subprocess.Popen(
            command, cwd=self.root, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        self.started.append(process)
        return process

    def cpu_seconds(self) -> float:
        """Return the CPU seconds (user + system) of every started process and its children."""
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for pid in self._tree():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
        return total

    def _tree(self) -> list[int]:
        pids = [p.pid for p in self.started if p.poll() is None]
        found = list(pids)
        while pids:
            children: list[int] = []
            for pid in pids:
                try:
                    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
                except OSError:
                    continue
                children += [int(c) for c in text.split()]
            found += children
            pids = children
        return found

    def stop(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def start_server(processes: Processes, args: argparse.Namespace, port: int, workers: int) -> None:
    """Start the server (supervisor or plain daphne) and wait until it answers."""
    python = str(ROOT / ".venv" / "bin" / "python")
    if args.plain_daphne:
        command = [python, "-m", "daphne", "-p", str(port), "volcano_site.asgi:application"]
    else:
        command = [python, "manage.py", "serve", "--port", str(port), "--workers", str(workers)]
    processes.start("server", command)
    wait_until_up(port)


def wait_until_up(port: int, timeout: float = 90.0) -> None:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=2)
            return
        except urllib.error.HTTPError:
            return  # it answers (401 without a token)
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the server did not answer on port {port} within {timeout:.0f} s")


def percentile(samples: list[float], fraction: float) -> float:
    """Return the ``fraction`` percentile of ``samples`` (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def job_manifest(name: str, run: str) -> dict[str, Any]:
    """Return a one-pod Volcano Job for the default queue, labelled with the run."""
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "labels": {"bench-run": run}},
        "spec": {
            "minAvailable": 1,
            "schedulerName": "volcano",
            "queue": "default",
            "tasks": [
                {
                    "replicas": 1,
                    "name": "main",
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "main",
                                    "image": "busybox",
                                    "command": ["sleep", "30"],
                                    "resources": {"requests": {"cpu": "100m"}},
                                }
                            ],
                            "restartPolicy": "Never",
                        }
                    },
                }
            ],
        },
    }


async def load(url: str, token: str, clients: int, duration: float, run: str) -> dict[str, Any]:
    """Run ``clients`` create/get/list/delete loops for ``duration`` s; return the record."""
    import aiohttp

    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    times: dict[str, list[float]] = {"create": [], "get": [], "list": [], "delete": []}
    statuses: dict[int, int] = {}
    errors: list[str] = []
    created: set[str] = set()
    deleted: set[str] = set()
    deadline = time.monotonic() + duration

    async def call(session: Any, verb: str, method: str, path: str, body: Any = None) -> int:
        data = json.dumps(body) if body is not None else None
        began = time.perf_counter()
        try:
            async with session.request(method, url + path, data=data) as response:
                text = await response.read()
        except aiohttp.ServerDisconnectedError as exc:
            # A kept-alive connection the server closed as the request went out: no answer,
            # counted as status 0 (the run goes on; a create without answer is not "created").
            statuses[0] = statuses.get(0, 0) + 1
            if len(errors) < 10:
                errors.append(f"{method} {path}: no answer ({exc})")
            return 0
        times[verb].append((time.perf_counter() - began) * 1000)
        statuses[response.status] = statuses.get(response.status, 0) + 1
        if response.status >= 400 and len(errors) < 10:
            errors.append(f"{method} {path}: {response.status} {text[:200]!r}")
        return int(response.status)

    async def client(index: int) -> None:
        connector = aiohttp.TCPConnector(limit=1)
        async with aiohttp.ClientSession(headers=headers, connector=connector) as session:
            serial = 0
            while time.monotonic() < deadline:
                name = f"load-{run}-{index}-{serial}"
                if await call(session, "create", "POST", JOBS, job_manifest(name, run)) == 201:
                    created.add(name)
                await call(session, "get", "GET", f"{JOBS}/{name}")
                await call(session, "list", "GET", f"{JOBS}?limit=100")
                if serial % 2 == 1:
                    previous = f"load-{run}-{index}-{serial - 1}"
                    if await call(session, "delete", "DELETE", f"{JOBS}/{previous}") == 200:
                        deleted.add(previous)
                serial += 1

    began = time.perf_counter()
    await asyncio.gather(*(client(index) for index in range(clients)))
    wall = time.perf_counter() - began
    return {
        "times": times,
        "statuses": statuses,
        "errors": errors,
        "created": created,
        "deleted": deleted,
        "wall": wall,
    }


def count_objects(run: str, created: set[str], deleted: set[str]) -> tuple[int, int, int]:
    """Return (stored, missing, resurrected): jobs of the run kept, lost, and deleted but there."""
    from jobs.models import Job

    stored = set(
        Job.objects.filter(namespace="default", name__startswith=f"load-{run}-").values_list(
            "name", flat=True
        )
    )
    kept = created - deleted
    return len(stored), len(kept - stored), len(stored & deleted)


def run_load(args: argparse.Namespace) -> int:
    """The default mode: see the module docstring."""
    from django.core.management import call_command

    if not args.no_cluster:
        call_command("demo_cluster", verbosity=0)
    token = bench_token()
    port = free_port()
    env = {**os.environ, **SERVER_ENV}
    with tempfile.TemporaryDirectory(prefix="api-load-") as logs:
        processes = Processes(Path(args.root), env, Path(logs))
        try:
            start_server(processes, args, port, args.workers)
            python = str(ROOT / ".venv" / "bin" / "python")
            if args.scheduler == "celery":
                celery = [python, "-m", "celery", "-A", "volcano_site"]
                processes.start("worker", [*celery, "worker", "-l", "warning", "-c", "1"])
                processes.start("beat", [*celery, "beat", "-l", "warning", "-s", f"{logs}/beat"])
            elif args.scheduler == "loop":
                processes.start("scheduler", [python, "manage.py", "run_scheduler"])
            time.sleep(3)  # the scheduler's first cycles
            run = uuid.uuid4().hex[:6]
            print(
                f"server: {'daphne' if args.plain_daphne else f'serve --workers {args.workers}'}"
                f" ({args.root}); scheduler: {args.scheduler}; {args.clients} clients for"
                f" {args.duration:.0f} s; load average {os.getloadavg()[0]:.1f} on"
                f" {os.cpu_count()} cores"
            )
            cpu_before = processes.cpu_seconds()
            client_cpu = time.process_time()
            record = asyncio.run(
                load(f"http://127.0.0.1:{port}", token, args.clients, args.duration, run)
            )
            server_cpu = processes.cpu_seconds() - cpu_before
            client_cpu = time.process_time() - client_cpu
        finally:
            processes.stop()
            if args.show_logs:
                for log in sorted(Path(logs).glob("*.log")):
                    print(f"== {log.name}\n{log.read_text()[-3000:]}")
    return report_load(record, server_cpu, client_cpu, run)


def report_load(record: dict[str, Any], server_cpu: float, client_cpu: float, run: str) -> int:
    """Print the load run's figures and the object count; return 1 if a target is missed."""
    times = record["times"]
    total = sum(len(samples) for samples in times.values())
    wall = record["wall"]
    rate = total / wall
    print(
        f"{total} requests in {wall:.1f} s wall: {rate:.1f} requests/s; server CPU"
        f" {server_cpu:.1f} s ({server_cpu / wall:.2f} cores), client CPU {client_cpu:.1f} s"
    )
    print(f"{'verb':<8}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}")
    worst = 0.0
    for verb, samples in times.items():
        if not samples:
            continue
        p95 = percentile(samples, 0.95)
        worst = max(worst, p95)
        print(
            f"{verb:<8}{len(samples):>7}{statistics.median(samples):>9.1f}{p95:>9.1f}"
            f"{max(samples):>9.1f}"
        )
    all_samples = [s for samples in times.values() for s in samples]
    print(
        f"{'all':<8}{len(all_samples):>7}{statistics.median(all_samples):>9.1f}"
        f"{percentile(all_samples, 0.95):>9.1f}{max(all_samples):>9.1f}"
    )
    server_errors = sum(n for status, n in record["statuses"].items() if status >= 500)
    print(f"statuses: {dict(sorted(record['statuses'].items()))}; 5xx: {server_errors}")
    for error in record["errors"]:
        print(f"  {error}")
    stored, missing, resurrected = count_objects(run, record["created"], record["deleted"])
    kept = len(record["created"]) - len(record["deleted"])
    print(
        f"objects: created {len(record['created'])}, deleted {len(record['deleted'])},"
        f" expected {kept}, stored {stored}, lost {missing}, deleted but stored {resurrected}"
    )
    met = rate >= 300 and worst <= 100 and not server_errors and not missing and not resurrected
    print(
        f"targets (>= 300 req/s, p95 <= 100 ms, no 5xx, nothing lost): {'met' if met else 'NOT met'}"
    )
    return 0 if met else 1


def seed_pods(start: int, stop: int) -> None:
    """Store pods ``start`` .. ``stop`` (namespaces ns-0 .. ns-9, bulk, no change events)."""
    from core.models import Pod

    spec = {"containers": [{"name": "main", "image": "busybox"}]}
    batch = 5000
    for first in range(start, stop, batch):
        Pod.objects.bulk_create(
            Pod(
                namespace=f"ns-{index % 10}",
                name=f"pod-{index:07d}",
                spec=spec,
                phase="Running",
                labels={"app": f"a{index % 100}"},
            )
            for index in range(first, min(first + batch, stop))
        )


def resize_pods(count: int) -> None:
    """Make ``pod-0000000`` .. ``pod-{count - 1}`` the stored bench pods (kept between runs)."""
    from django.db import connection

    from core.models import Pod

    stored = Pod.objects.filter(name__startswith="pod-").count()
    if stored < count:
        seed_pods(stored, count)
    elif stored > count:
        with connection.cursor() as cursor:  # a bulk DELETE: no per-row signals for 150,000 pods
            cursor.execute(
                f"DELETE FROM {Pod._meta.db_table} WHERE name LIKE 'pod-%%' AND name >= %s",
                [f"pod-{count:07d}"],
            )
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Pod._meta.db_table}")


async def list_all(url: str, token: str, page_size: int) -> tuple[list[float], int, dict[str, Any]]:
    """Read every pod in pages of ``page_size``; return page ms, the item count, the last meta."""
    import aiohttp

    headers = {"Authorization": f"Bearer {token}"}
    pages: list[float] = []
    items = 0
    meta: dict[str, Any] = {}
    cont = ""
    async with aiohttp.ClientSession(headers=headers) as session:
        while True:
            query = f"?limit={page_size}" + (f"&continue={cont}" if cont else "")
            began = time.perf_counter()
            async with session.get(url + PODS + query) as response:
                body = await response.json()
            pages.append((time.perf_counter() - began) * 1000)
            if response.status != 200:
                raise SystemExit(f"page {len(pages)}: {response.status} {body}")
            items += len(body["items"])
            if len(pages) == 1:
                meta = body["metadata"]
            cont = body["metadata"].get("continue", "")
            if not cont:
                return pages, items, meta


def run_list(args: argparse.Namespace) -> int:
    """The ``--list`` mode: see the module docstring."""

    token = bench_token()
    port = free_port()
    env = {**os.environ, **SERVER_ENV}
    failed = False
    with tempfile.TemporaryDirectory(prefix="api-list-") as logs:
        processes = Processes(Path(args.root), env, Path(logs))
        try:
            start_server(processes, args, port, 1)
            print(
                f"{'pods':>8}{'pages':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}"
                f"{'server CPU/page ms':>20}{'remaining on page 1':>21}"
            )
            rows = []
            # Largest first: a smaller size is a bulk DELETE away, a larger one a long insert.
            for fraction in (1, 2, 4):
                target = args.pods // fraction
                resize_pods(target)
                asyncio.run(list_all(f"http://127.0.0.1:{port}", token, args.page))  # warm
                cpu = processes.cpu_seconds()
                pages, items, meta = asyncio.run(
                    list_all(f"http://127.0.0.1:{port}", token, args.page)
                )
                cpu_per_page = (processes.cpu_seconds() - cpu) * 1000 / len(pages)
                p95 = percentile(pages, 0.95)
                failed |= fraction == 1 and p95 > 50
                rows.append(
                    f"{items:>8}{len(pages):>7}{statistics.median(pages):>9.1f}{p95:>9.1f}"
                    f"{max(pages):>9.1f}{cpu_per_page:>20.1f}"
                    f"{meta.get('remainingItemCount', '-')!s:>21}"
                )
            for row in reversed(rows):
                print(row)
            print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        finally:
            processes.stop()
    print(f"target (p95 page <= 50 ms at {args.pods} pods): {'NOT met' if failed else 'met'}")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database of your own")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--root", default=str(ROOT), help="the checkout whose code is served")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--plain-daphne", action="store_true", help="one bare daphne process")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--scheduler", choices=("celery", "loop", "none"), default="celery")
    parser.add_argument("--no-cluster", action="store_true", help="skip demo_cluster's nodes")
    parser.add_argument("--list", action="store_true", help="time paged LIST of --pods pods")
    parser.add_argument("--pods", type=int, default=200_000)
    parser.add_argument("--page", type=int, default=500)
    parser.add_argument("--show-logs", action="store_true")
    args = parser.parse_args()
    setup_django(args.database_url, args.redis_url)
    if args.list:
        return run_list(args)
    return run_load(args)


if __name__ == "__main__":
    sys.exit(main())
