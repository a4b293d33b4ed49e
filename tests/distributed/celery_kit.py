"""Real services for the distributed tests: Celery workers and beat as processes sharing the
test database and a private Redis database, and waiting on what they do.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jobs.models import Job

REPO = Path(__file__).resolve().parents[2]
CELERY = str(Path(sys.executable).parent / "celery")


class Stack:
    """Start and stop Celery processes that share the test database and a private Redis DB."""

    def __init__(self, db_name: str, workdir: Path) -> None:
        base = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
        # Another db when runs share a Redis; one per pytest-xdist worker (gw0 9, gw1 10, ...).
        worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
        db = os.environ.get("VOLCANO_DIST_REDIS_DB", str(9 + worker))
        self.redis_url = os.environ["REDIS_URL"].rsplit("/", 1)[0] + f"/{db}"
        self.workdir = workdir
        self.env = {
            **os.environ,
            "DATABASE_URL": f"{base}/{db_name}",
            "REDIS_URL": self.redis_url,
            "VOLCANO_DATA_DIR": str(workdir),
            "DJANGO_SETTINGS_MODULE": "volcano_site.settings",
            "VOLCANO_SCHEDULE_PERIOD": "0.3",
            "VOLCANO_LEADER_TTL": "2",
            "VOLCANO_SIM_SPEED": "10",
            "VOLCANO_SIM_START_DELAY": "0.5",
        }
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def redis(self) -> Any:
        import redis

        return redis.Redis.from_url(self.redis_url)

    def start(
        self, name: str, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        log = (self.workdir / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            [CELERY, "-A", "volcano_site", *args], cwd=REPO, env={**self.env, **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        self.procs[name] = proc
        return proc

    def worker(self, name: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        return self.start(name, "worker", "-P", "solo", "-l", "info", "-n", f"{name}@%h",
                          "--prefetch-multiplier", "1", "-Q", f"celery,{name}",
                          "--without-gossip", "--without-mingle", "--without-heartbeat",
                          env=env)  # fmt: skip

    def beat(self) -> subprocess.Popen[bytes]:
        return self.start("beat", "beat", "-l", "info", "-s", str(self.workdir / "beat-schedule"))

    def log(self, name: str) -> str:
        return (self.workdir / f"{name}.log").read_text(errors="replace")

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        proc = self.procs[name]
        if proc.poll() is None:
            os.killpg(proc.pid, sig)
            proc.wait(10)

    def stop_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


def wait_for(done: Callable[[], bool], timeout: float, what: str, stack: Stack) -> None:
    """Return once ``done()`` holds; fail after ``timeout`` seconds with every process's log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if done():
            return
        time.sleep(0.2)
    logs = "\n".join(f"--- {n}\n{stack.log(n)[-3000:]}" for n in stack.procs)
    raise AssertionError(f"timed out waiting for {what}\n{logs}")


def completed(names: list[str]) -> bool:
    """Return whether every job named has completed."""
    return Job.objects.filter(name__in=names, phase="Completed").count() == len(names)
