"""Real services: a Celery worker (or two) and beat against PostgreSQL and Redis.

Skipped, with the reason, unless ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` are set, as
``.ci/run`` sets them. The workers see the test database (pytest-django's ``test_…`` copy) and
use Redis database 9, flushed first, so nothing else on that Redis is touched. Every process is
started in its own session and always stopped (SIGTERM, then SIGKILL) when the test ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
CELERY = str(Path(sys.executable).parent / "celery")

pytestmark = pytest.mark.distributed


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    missing = [n for n in ("DATABASE_URL", "REDIS_URL") if not os.environ.get(n)]
    url = os.environ.get("DATABASE_URL", "")
    reason = ""
    if missing:
        reason = f"needs real services: {' and '.join(missing)} unset"
    elif not url.startswith(("postgres://", "postgresql://")):
        reason = "needs DATABASE_URL to name PostgreSQL"
    for item in items:
        if "tests/distributed/" in str(item.fspath):
            item.add_marker(pytest.mark.distributed)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


class Stack:
    """Start and stop Celery processes that share the test database and a private Redis DB."""

    def __init__(self, db_name: str, workdir: Path) -> None:
        base = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
        db = os.environ.get("VOLCANO_DIST_REDIS_DB", "9")  # another db when runs share a Redis
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


@pytest.fixture
def stack(transactional_db: None) -> Iterator[Stack]:
    """Return the stack helper on the committed (transactional) test database."""
    from django.db import connection

    with tempfile.TemporaryDirectory(prefix="volcano-dist-") as tmp:
        s = Stack(connection.settings_dict["NAME"], Path(tmp))
        s.redis().flushdb()
        try:
            yield s
        finally:
            s.stop_all()
            s.redis().flushdb()
