"""The distributed mode at XL for a while: ``python bench/distributed_xl.py --database-url URL``.

Issue 34's run of the whole system at scale, on PostgreSQL and Redis, as the README's
distributed mode runs it: the XL demo cluster (``manage.py demo_cluster --size xl``: 20,000
nodes, the demo's queues and policy), the server as ``manage.py serve --workers 2`` (two API
processes on one port), one Celery worker running sessions and one running the simulated
kubelet (``VOLCANO_CELERY_QUEUES=split``), beat, and the demo's job stream; beside them
``--clients`` API clients create, get, list and delete Volcano Jobs (``bench/api_load.py``'s
loop) for ``--minutes``. At the end it prints the clients' requests/s and p95 per verb, every
5xx, the objects counted (each job a client created and did not delete must be stored; each
it deleted gone), the sessions run in the window with their p50/p95/max (``SessionRecord``'s
``e2e_ms``, read to write-back) and the p50/p95 of each part (open, actions, write-back, the
rest), binds, how far behind the controllers were (sampled every 5 s, ``scheduler.health``),
and the CPU seconds of each process beside the wall time. ``--keep-logs DIR`` keeps the
processes' logs (``--log-level info`` logs each session's read and write times).
Not run by ``make test``; the database named is emptied first.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import threading
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
    """Return the sessions since ``since``: count, p50/p95/max of e2e, its parts, binds.

    ``e2e_ms`` runs from the cycle's start to the end of the write-back (``apply_ms`` is part of
    it); ``open_ms`` is the snapshot read and the plugins' open; the actions are the rest.
    """
    from scheduler.models import SessionRecord

    rows = list(
        SessionRecord.objects.filter(started_at__gte=since).values_list(
            "e2e_ms",
            "apply_ms",
            "binds",
            "error",
            "node_count",
            "pending_task_count",
            "open_ms",
            "action_ms",
        )
    )
    if not rows:
        return "sessions: none recorded in the window"
    e2e = [r[0] for r in rows]
    errors = sum(1 for r in rows if r[3])
    lines = [
        f"sessions: {len(rows)} ({errors} with an error) over {max(r[4] for r in rows)} nodes;"
        f" e2e (read to write-back) ms p50 {statistics.median(e2e):.0f}, p95"
        f" {percentile(e2e, 0.95):.0f}, max {max(e2e):.0f}; binds {sum(r[2] for r in rows)};"
        f" most pending tasks seen {max(r[5] for r in rows)}"
    ]
    parts = {
        "open (read + plugins)": [r[6] for r in rows],
        "actions": [sum((r[7] or {}).values()) for r in rows],
        "write-back": [r[1] for r in rows],
    }
    parts["rest (shares, loads, controllers when in the cycle)"] = [
        max(r[0] - r[6] - a - r[1], 0.0) for r, a in zip(rows, parts["actions"], strict=True)
    ]
    for name, values in parts.items():
        lines.append(
            f"  {name:<52} p50 {statistics.median(values):7.0f} ms"
            f"  p95 {percentile(values, 0.95):7.0f} ms"
        )
    return "\n".join(lines)


def cpu_by_process(processes: Processes, names: list[str]) -> dict[str, float]:
    """Return the CPU seconds of each started process with its children, by name."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for name, process in zip(names, processes.started, strict=True):
        pids, total = [process.pid], 0.0
        while pids:
            pid = pids.pop()
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
            pids += [int(child) for child in children]
        out[name] = total
    return out


class LagSampler(threading.Thread):
    """Every few seconds, how far behind the controllers are (``scheduler.health``)."""

    def __init__(self, every: float = 5.0) -> None:
        super().__init__(name="lag-sampler", daemon=True)
        self.every = every
        self.stopping = threading.Event()
        self.lags: list[float] = []
        self.passes: dict[float, float] = {}  # pass end (timestamp) -> its ms, all controllers

    def run(self) -> None:
        from django.db import connection

        from scheduler.health import controller_lag

        try:
            while not self.stopping.wait(self.every):
                try:
                    lag = controller_lag()
                except Exception as exc:  # a figure, never worth the run
                    print(f"  (lag sample failed: {exc})")
                    continue
                self.lags.append(lag.seconds)
                if lag.reconciled is not None:
                    done = lag.reconciled
                    self.passes[done.at.timestamp()] = sum(done.durations_ms.values())
        finally:
            connection.close()

    def figures(self) -> str:
        if not self.lags:
            return "controllers: no lag sampled"
        ms = list(self.passes.values()) or [0.0]
        return (
            f"controllers: oldest unreconciled change p50 {statistics.median(self.lags):.1f} s,"
            f" p95 {percentile(self.lags, 0.95):.1f} s, max {max(self.lags):.1f} s"
            f" ({len(self.lags)} samples); passes seen {len(self.passes)}, ms p50"
            f" {statistics.median(ms):.0f}, p95 {percentile(ms, 0.95):.0f}"
        )


def main() -> int:
    """Parse the command line, run the stack for the duration, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/volcano_dxl")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/11")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--size", choices=("default", "xl"), default="xl")
    parser.add_argument("--keep-logs", default="", help="write the processes' logs to this folder")
    parser.add_argument("--log-level", default="warning", help="the Celery workers' log level")
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
    with tempfile.TemporaryDirectory(prefix="distributed-xl-") as scratch:
        logs = args.keep_logs or scratch
        Path(logs).mkdir(parents=True, exist_ok=True)
        processes = Processes(ROOT, env, Path(logs))
        try:
            processes.start("server", [python, "manage.py", "serve", "--port", str(port),
                                       "--workers", "2"])  # fmt: skip
            wait_until_up(port)
            processes.start("sessions", [*celery, "worker", "-l", args.log_level, "-c", "1",
                                         "-n", "sessions@%h", "-Q", "celery,scheduler"])  # fmt: skip
            processes.start("kubelet", [*celery, "worker", "-l", args.log_level, "-c", "1",
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
            names = ["server", "sessions", "kubelet", "beat", "stream"]
            cpu_before = processes.cpu_seconds()
            each_before = cpu_by_process(processes, names)
            sampler = LagSampler()
            sampler.start()
            record = asyncio.run(
                load(f"http://127.0.0.1:{port}", token, args.clients, args.minutes * 60, run)
            )
            cpu = processes.cpu_seconds() - cpu_before
            each = cpu_by_process(processes, names)
            each = {name: each[name] - each_before.get(name, 0.0) for name in names}
            sampler.stopping.set()
            sampler.join(30)
        finally:
            processes.stop()
        server_log = (Path(logs) / "server.log").read_text(errors="replace")
    times = record["times"]
    total = sum(len(samples) for samples in times.values())
    print(
        f"{total} client requests in {record['wall']:.0f} s ({total / record['wall']:.1f}/s);"
        f" processes' CPU {cpu:.0f} s ({cpu / record['wall']:.2f} cores: "
        + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in each.items())
        + f"); load average at the end {os.getloadavg()[0]:.1f}"
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
    print(sampler.figures())
    from jobs.models import Job

    print(f"jobs stored at the end: {Job.objects.count()}")
    return 0 if not server_errors and not missing and not resurrected else 1


if __name__ == "__main__":
    raise SystemExit(main())
