"""1,000 open watches on one server, one change reaching all of them (issue 34, target 4):
``python -m bench.watches --database-url postgres://127.0.0.1/DB``.

Starts one server process (``manage.py serve --workers 1``) on the PostgreSQL database and,
from this process (asyncio, one connection per watch), opens ``--watches`` streaming job watches
(``?watch=1`` from a list's resourceVersion, as client-go's reflector does) at 1/4, 1/2 and the
full count. Once every watch is open, one job is changed (a label carrying a marker) and the
time from that request until the last watch has read the change is printed, with the CPU
seconds the server and this client spent meanwhile beside it. Then ``--burst`` changes of the
same job follow as fast as the API takes them, and every watch must end showing the last one:
a watch may coalesce changes it reads together (it sends an object's latest state), but none
may stop short of the last (the events ``kube.watch_hub`` once lost). Each row also counts the
watches the server refused to open and gives the change's HTTP status. Prints the target's
verdict; exits 1 when it is not met. ``--root DIR`` serves another checkout's code (a worktree
of the base commit: before/after). Not run by ``make test``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.api_load import (
    JOBS,
    ROOT,
    SERVER_ENV,
    Processes,
    bench_token,
    free_port,
    job_manifest,
    setup_django,
    start_server,
)

JOB = "watched"
TARGET_SECONDS = 1.0


@dataclass
class Round:
    """What one round measured."""

    watches: int
    open_seconds: float
    fan_out: float  # wall seconds from the change's request to the last watch reading it
    server_cpu: float  # CPU seconds of the server over the same span
    client_cpu: float  # of this process (the watches' reading) over the same span
    reached: int  # watches that read the change
    refused: int  # watches the server did not open (not 200)
    burst_last: int  # watches whose last line shows the burst's last change
    answer: int  # the HTTP status of the change (the first one refused, if any was)


async def _round(url: str, token: str, count: int, burst: int, server: Processes) -> Round:
    import aiohttp

    first = f"m-{uuid.uuid4().hex[:8]}"
    last = f"{first}-{burst}" if burst else first
    opened = refused = 0
    all_open = asyncio.Event()
    reached: list[float] = []
    final: dict[int, str] = {}  # watch -> the marker of the last line it read
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(
        headers={"Authorization": f"Bearer {token}"}, connector=connector, timeout=timeout
    ) as session:
        version = await latest_version(session, url)

        async def watch(index: int) -> None:
            nonlocal opened, refused
            path = f"{JOBS}?watch=1&resourceVersion={version}&timeoutSeconds=300"
            async with session.get(url + path) as response:
                opened += 1
                if opened == count:
                    all_open.set()
                if response.status != 200:
                    refused += 1
                    return
                async for line in response.content:
                    if first.encode() not in line:
                        continue
                    if index not in final:
                        reached.append(time.perf_counter())
                    labels = json.loads(line)["object"]["metadata"]["labels"]
                    final[index] = labels.get("bench-marker", "")
                    if final[index] == last:
                        return

        began = time.perf_counter()
        tasks = [asyncio.create_task(watch(i)) for i in range(count)]
        await asyncio.wait_for(all_open.wait(), timeout=300)
        open_seconds = time.perf_counter() - began
        await asyncio.sleep(1.0)  # every watch past its opening
        cpu, client = server.cpu_seconds(), time.process_time()
        changed = time.perf_counter()
        answer = await _label(session, url, first)
        deadline = changed + (30 if answer == 200 else 0)
        while len(reached) < count and time.perf_counter() < deadline:
            await asyncio.sleep(0.005)
        server_cpu, client_cpu = server.cpu_seconds() - cpu, time.process_time() - client
        fan_out = (max(reached) - changed) if len(reached) == count else float("inf")
        for step in range(1, burst + 1):
            if answer == 200:
                answer = await _label(session, url, f"{first}-{step}")
        _, pending = await asyncio.wait(tasks, timeout=30 if answer == 200 else 0.1)
        for task in pending:
            task.cancel()
        burst_last = sum(1 for marker in final.values() if marker == last)
        return Round(
            count,
            open_seconds,
            fan_out,
            server_cpu,
            client_cpu,
            len(reached),
            refused,
            burst_last,
            answer,
        )


async def _label(session: Any, url: str, marker: str) -> int:
    """Change the job (a label carrying ``marker``); return the HTTP status."""
    patch = {"metadata": {"labels": {"bench-marker": marker}}}
    async with session.patch(
        f"{url}{JOBS}/{JOB}",
        data=json.dumps(patch),
        headers={"Content-Type": "application/merge-patch+json"},
    ) as response:
        await response.read()
        return int(response.status)


async def latest_version(session: Any, url: str) -> str:
    async with session.get(url + JOBS + "?limit=1") as response:
        body = await response.json()
    return str(body["metadata"]["resourceVersion"])


def _create_job(url: str, token: str) -> None:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url + JOBS,
        data=json.dumps(job_manifest(JOB, "watch")).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        urllib.request.urlopen(request)
    except urllib.error.HTTPError as exc:
        if exc.code != 409:
            raise


def run(args: argparse.Namespace) -> int:
    """Run the rounds; print a row each and the verdict."""
    token = bench_token()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    args.plain_daphne = False
    with tempfile.TemporaryDirectory(prefix="bench-watches-") as logs:
        server = Processes(Path(args.root), {**os.environ, **SERVER_ENV}, Path(logs))
        try:
            start_server(server, args, port, 1)
            _create_job(url, token)
            print(f"one server process (serve --workers 1), PostgreSQL; burst of {args.burst}")
            print(
                f"{'watches':>8}{'open s':>8}{'fan-out ms':>12}{'server CPU ms':>15}"
                f"{'client CPU ms':>15}{'reached':>9}{'refused':>9}{'burst last':>12}{'change':>8}"
            )
            met = True
            for fraction in (4, 2, 1):
                count = args.watches // fraction
                done = asyncio.run(_round(url, token, count, args.burst, server))
                print(
                    f"{done.watches:>8}{done.open_seconds:>8.1f}{done.fan_out * 1000:>12.0f}"
                    f"{done.server_cpu * 1000:>15.0f}{done.client_cpu * 1000:>15.0f}"
                    f"{done.reached:>9}{done.refused:>9}{done.burst_last:>12}{done.answer:>8}"
                )
                met &= done.answer == 200 and done.reached == count and done.burst_last == count
                if fraction == 1:
                    met &= done.fan_out <= TARGET_SECONDS
                time.sleep(1)
            load = os.getloadavg()
            print(f"load average {load[0]:.1f} {load[1]:.1f} on {os.cpu_count()} cores")
        finally:
            server.stop()
            if args.show_logs:
                for log in sorted(Path(logs).glob("*.log")):
                    print(f"== {log.name}\n{log.read_text()[-3000:]}")
    print(
        f"target (all {args.watches} watches within {TARGET_SECONDS:.0f} s, none short of the "
        f"last change): {'met' if met else 'NOT met'}"
    )
    return 0 if met else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="a PostgreSQL database of your own")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--root", default=str(ROOT), help="the checkout whose code is served")
    parser.add_argument("--watches", type=int, default=1000)
    parser.add_argument("--burst", type=int, default=20, help="changes in a row after the first")
    parser.add_argument("--show-logs", action="store_true")
    args = parser.parse_args(argv)
    setup_django(args.database_url, args.redis_url)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
