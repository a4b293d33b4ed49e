"""The distributed mode at XL for a while: ``python bench/distributed_xl.py --database-url URL``.

Issue 34's run of the whole system at scale, on PostgreSQL and Redis, as the README's
distributed mode runs it: the XL demo cluster (``manage.py demo_cluster --size xl``: 20,000
nodes, the demo's queues and policy), the server as ``manage.py serve --workers 2`` (two API
processes on one port), one Celery worker running sessions and one running the simulated
kubelet (``VOLCANO_CELERY_QUEUES=split``), beat, and the demo's job stream; beside them
``--clients`` API clients create, get, list and delete Volcano Jobs (``bench/api_load.py``'s
loop) for ``--minutes``. At the end it prints the clients' requests/s and p95 per verb, every
5xx, the objects counted (each job a client created and did not delete must be stored; each
it deleted gone), the sessions run in the window with their p50/p95/max (``SessionRecord``:
open, actions and write-back), binds, and the CPU seconds of the processes beside the wall time.
Not run by ``make test``; the database named is emptied first.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api_load import (  # noqa: E402 - after the path set-up above
    Processes,
    bench_token,
    count_objects,
    free_port,
    load,
    percentile,
    setup_django,
    wait_until_up,
)

SPLIT_ENV = {
    "DEBUG": "0",
    "LOG_LEVEL": "WARNING",
    "VOLCANO_SIM_SPEED": "10",
    "VOLCANO_CELERY_QUEUES": "split",
    "VOLCANO_DEMO_SIZE": "xl",
}


def reset_database(url: str) -> None:
    """Drop and create the database ``url`` names (never the developer's own: a bench name)."""
    import psycopg

    base, _, name = url.rpartition("/")
    if not name.startswith("volcano_") or name in ("volcano", "volcano_ci"):
        raise SystemExit(f"refusing to empty database {name!r}: name a volcano_<bench> one")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def session_figures(since: datetime) -> str:
    """Return the sessions since ``since``: count, p50/p95/max of e2e and write-back, binds."""
    from scheduler.models import SessionRecord

    rows = list(
        SessionRecord.objects.filter(started_at__gte=since).values_list(
            "e2e_ms", "apply_ms", "binds", "error", "node_count", "pending_task_count"
        )
    )
    if not rows:
        return "sessions: none recorded in the window"
    e2e = [r[0] + r[1] for r in rows]
    errors = sum(1 for r in rows if r[3])
    return (
        f"sessions: {len(rows)} ({errors} with an error) over {max(r[4] for r in rows)} nodes;"
        f" session + write-back ms p50 {statistics.median(e2e):.0f}, p95"
        f" {percentile(e2e, 0.95):.0f}, max {max(e2e):.0f}; binds {sum(r[2] for r in rows)};"
        f" most pending tasks seen {max(r[5] for r in rows)}"
    )


def main() -> int:
    """Parse the command line, run the stack for the duration, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/volcano_dxl")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/11")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--size", choices=("default", "xl"), default="xl")
    args = parser.parse_args()

    reset_database(args.database_url)
    import redis

    redis.Redis.from_url(args.redis_url).flushdb()
    started = time.perf_counter()
    setup_django(args.database_url, args.redis_url)
    from django.core.management import call_command

    call_command("demo_cluster", size="xl" if args.size == "xl" else "", verbosity=0)
    print(f"cluster loaded ({args.size}) in {time.perf_counter() - started:.0f} s")
    token = bench_token()
    port = free_port()
    python = str(ROOT / ".venv" / "bin" / "python")
    celery = [python, "-m", "celery", "-A", "volcano_site"]
    env = {**os.environ, **SPLIT_ENV}
    if args.size != "xl":
        env.pop("VOLCANO_DEMO_SIZE")
    with tempfile.TemporaryDirectory(prefix="distributed-xl-") as logs:
        processes = Processes(ROOT, env, Path(logs))
        try:
            processes.start("server", [python, "manage.py", "serve", "--port", str(port),
                                       "--workers", "2"])  # fmt: skip
            wait_until_up(port)
            processes.start("sessions", [*celery, "worker", "-l", "warning", "-c", "1",
                                         "-n", "sessions@%h", "-Q", "celery,scheduler"])  # fmt: skip
            processes.start("kubelet", [*celery, "worker", "-l", "warning", "-c", "1",
                                        "-n", "kubelet@%h", "-Q", "kubelet"])  # fmt: skip
            processes.start("beat", [*celery, "beat", "-l", "warning", "-s", f"{logs}/beat"])
            stream = [python, "manage.py", "demo_cluster", "--stream", "--interval", "1"]
            if args.size == "xl":
                stream += ["--size", "xl"]
            processes.start("stream", stream)
            window = datetime.now(UTC)
            run = uuid.uuid4().hex[:6]
            print(
                f"serve --workers 2, a sessions worker, a kubelet worker, beat, the demo stream;"
                f" {args.clients} clients for {args.minutes:.0f} min; load average"
                f" {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
            )
            cpu_before = processes.cpu_seconds()
            record = asyncio.run(
                load(f"http://127.0.0.1:{port}", token, args.clients, args.minutes * 60, run)
            )
            cpu = processes.cpu_seconds() - cpu_before
        finally:
            processes.stop()
        server_log = (Path(logs) / "server.log").read_text(errors="replace")
    times = record["times"]
    total = sum(len(samples) for samples in times.values())
    print(
        f"{total} client requests in {record['wall']:.0f} s ({total / record['wall']:.1f}/s);"
        f" processes' CPU {cpu:.0f} s ({cpu / record['wall']:.2f} cores)"
    )
    for verb, samples in times.items():
        if samples:
            print(
                f"  {verb:<7} {len(samples):>6}  p50 {statistics.median(samples):7.1f} ms"
                f"  p95 {percentile(samples, 0.95):7.1f} ms  max {max(samples):7.1f} ms"
            )
    server_errors = sum(n for status, n in record["statuses"].items() if status >= 500)
    logged = server_log.count('" 50')  # daphne's access lines of a 5xx answer
    print(f"statuses: {dict(sorted(record['statuses'].items()))}; 5xx: {server_errors}")
    for error in record["errors"]:
        print(f"  {error}")
    stored, missing, resurrected = count_objects(run, record["created"], record["deleted"])
    print(
        f"objects: created {len(record['created'])}, deleted {len(record['deleted'])}, stored"
        f" {stored}, lost {missing}, deleted but stored {resurrected}; 5xx in the server log"
        f" {logged}"
    )
    print(session_figures(window))
    from jobs.models import Job

    print(f"jobs stored at the end: {Job.objects.count()}")
    return 0 if not server_errors and not missing and not resurrected else 1


if __name__ == "__main__":
    raise SystemExit(main())
