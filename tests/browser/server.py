"""The console as a user runs it, for browser tests: daphne in a subprocess (HTTP and the live
websocket), its own SQLite file, the embedded scheduler on a fast simulated clock.

pytest-django's ``live_server`` is WSGI and cannot serve the console's websocket, and the
embedded scheduler needs a process of its own; so the main flows meet exactly what
``make run`` starts. One server serves a whole test session; tests use their own names.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.migrated import copy_migrated_database

ROOT = Path(__file__).resolve().parents[2]
# Sixty simulated seconds a second: a pod asking for 30 s runs half a real second.
SERVER_ENV = {
    "VOLCANO_EMBEDDED_SCHEDULER": "1",
    "VOLCANO_SIM_SPEED": "60",
    "VOLCANO_SIM_DEFAULT_DURATION": "120",
    "VOLCANO_SIM_START_DELAY": "1",
    "VOLCANO_SCHEDULE_PERIOD": "0.3",
    "DEBUG": "0",
    "LOG_LEVEL": "WARNING",
}
STARTUP_SECONDS = 60
PASSWORD = "a-long-browser-password"

_MAKE_USER = """
from django.contrib.auth.models import Group, User
from accounts.models import NamespaceGrant
user = User.objects.create_user({name!r}, password={password!r})
if {role!r} == "admin":
    user.is_superuser = user.is_staff = True
    user.save()
else:
    user.groups.add(Group.objects.get(name={role!r}))
for namespace in {namespaces!r}:
    NamespaceGrant.objects.create(user=user, namespace=namespace)
"""


def free_port() -> int:
    """Return a TCP port free on the loopback interface right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class ConsoleServer:
    """A running console: its URL and the environment its ``manage.py`` commands need."""

    url: str
    env: dict[str, str]
    data_dir: Path
    pid: int = 0  # the server process (for its memory, in the attack tests)

    def manage(self, *args: str, stdin: str | None = None) -> str:
        """Run ``manage.py`` against this server's database; return its output."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT, env=self.env, input=stdin, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    def apply(self, manifest: str) -> str:
        """Apply YAML ``manifest`` as ``manage.py apply -f -`` would, from a file."""
        path = self.data_dir / f"manifest-{time.monotonic_ns()}.yaml"
        path.write_text(manifest)
        return self.manage("apply", "-f", str(path))

    def make_user(self, name: str, role: str, *, namespaces: tuple[str, ...] = ()) -> None:
        """Create ``name`` (password ``PASSWORD``) holding ``role`` and grants."""
        script = _MAKE_USER.format(name=name, password=PASSWORD, role=role, namespaces=namespaces)
        self.manage("shell", "-c", script)


def _wait_until_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the console exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url + "/version", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"the console did not answer within {STARTUP_SECONDS}s")


def run_console(
    directory: Path, *, extra_env: dict[str, str] | None = None
) -> Iterator[ConsoleServer]:
    """Migrate a fresh database in ``directory``, serve it, yield, then stop the server."""
    env = {**os.environ, **SERVER_ENV, **(extra_env or {}), "VOLCANO_DATA_DIR": str(directory)}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = ConsoleServer(url, env, directory)
    copy_migrated_database(directory, env)
    log = (directory / "server.log").open("wb")
    daphne = str(Path(sys.executable).parent / "daphne")
    process = subprocess.Popen(
        [daphne, "-b", "127.0.0.1", "-p", str(port), "volcano_site.asgi:application"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        _wait_until_up(url, process)
        yield dataclasses.replace(server, pid=process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        log.close()
