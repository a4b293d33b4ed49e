"""``manage.py serve --workers N`` in a subprocess: its children, a watch held on one of them.

The supervisor runs on a migrated SQLite file of its own (several processes share it, as
they share PostgreSQL in the distributed mode) without the embedded scheduler.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from tests.kube.server_kit import ROOT, SERVER_ENV, free_port, manage, wait_for
from tests.migrated import copy_migrated_database

__all__ = ["Served", "StreamReader", "children_of", "running", "served"]

_MAKE_OPERATOR = """
from django.contrib.auth.models import Group, User
user = User.objects.create_user("serve-ops", password="unused-password")
user.groups.add(Group.objects.get_or_create(name="operator")[0])
"""


@dataclass
class Served:
    """The supervisor process, where it answers and a token of an operator."""

    process: subprocess.Popen[bytes]
    url: str
    token: str

    def children(self) -> list[int]:
        """Return the pids of the supervisor's running children."""
        return children_of(self.process.pid)

    def call(self, method: str, path: str, body: object = None) -> tuple[int, bytes]:
        """Make one call on a new connection; return (status, body)."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()


def children_of(pid: int) -> list[int]:
    """Return the pids of ``pid``'s running children (Linux /proc)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(child) for child in text.split() if running(int(child))]


def running(pid: int) -> bool:
    """Return whether ``pid`` runs (a zombie does not)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return status != "Z"


@contextmanager
def served(directory: Path, workers: int) -> Iterator[Served]:
    """Run ``manage.py serve --workers`` on a fresh database; SIGTERM it afterwards."""
    env = {**os.environ, **SERVER_ENV, "VOLCANO_DATA_DIR": str(directory)}
    for name in ("DATABASE_URL", "REDIS_URL", "VOLCANO_EMBEDDED_SCHEDULER"):
        env.pop(name, None)
    copy_migrated_database(directory, env)
    manage(env, "shell", "-c", _MAKE_OPERATOR)
    port = free_port()
    config = manage(
        env, "kubeconfig", "--user", "serve-ops", "--server", f"http://127.0.0.1:{port}"
    )
    token = yaml.safe_load(config)["users"][0]["user"]["token"]
    log = (directory / "serve.log").open("wb")
    command = [sys.executable, "manage.py", "serve", "--port", str(port), "--workers", str(workers)]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = Served(process, f"http://127.0.0.1:{port}", token)
    try:
        wait_for(lambda: len(server.children()) == workers, timeout=60)
        wait_for(lambda: _answers(server.url), timeout=60)
        yield server
    finally:
        children = server.children()
        for pid in children:
            os.kill(pid, signal.SIGCONT)  # none left stopped by a failed test
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        for pid in children:
            if running(pid):
                os.kill(pid, signal.SIGKILL)  # orphans of the killed supervisor
        log.close()


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/version", timeout=2):
            return True
    except OSError:
        return False


@dataclass
class StreamReader:
    """A ``?watch=1`` stream read line by line in a thread."""

    served: Served
    path: str
    lines: list[str] = field(default_factory=list)
    opened: threading.Event = field(default_factory=threading.Event)

    def start(self) -> StreamReader:
        threading.Thread(target=self._read, daemon=True).start()
        assert self.opened.wait(30), "the watch did not open"
        return self

    def _read(self) -> None:
        request = urllib.request.Request(
            self.served.url + self.path, headers={"Authorization": f"Bearer {self.served.token}"}
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            self.opened.set()
            for line in answer:
                self.lines.append(line.decode())

    def saw(self, text: str, timeout: float = 20.0) -> bool:
        """Return whether a line holding ``text`` arrived within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(text in line for line in list(self.lines)):
                return True
            time.sleep(0.1)
        return False
