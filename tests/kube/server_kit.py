"""A real server for real clients: daphne in a subprocess, its own SQLite file, the embedded
scheduler on a fast simulated clock, and a TLS relay in front (kubectl sends tokens only
over HTTPS); kubectl run once or in the background against it.

pytest-django's live server shares one in-memory SQLite connection between threads,
which a long watch stream and the scheduler cannot share safely; a separate process
is what a user runs (``make run``), so the clients meet exactly that. tests/kube starts
one server for its package (its conftest's ``kube_server``), tests/training another.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.kube.tls import TLSRelay, self_signed
from tests.migrated import copy_migrated_database

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "fixtures" / "examples"
JOB_FILES = sorted((EXAMPLES / "jobs").glob("*.yaml"))
KUBECTL = shutil.which("kubectl")
# Sixty simulated seconds a second: `sleep 10m` runs ten seconds; other pods five.
SERVER_ENV = {
    "VOLCANO_EMBEDDED_SCHEDULER": "1",
    "VOLCANO_SIM_SPEED": "60",
    "VOLCANO_SIM_DEFAULT_DURATION": "300",
    "VOLCANO_SIM_START_DELAY": "1",
    "VOLCANO_SCHEDULE_PERIOD": "0.3",
    "DEBUG": "0",
    "LOG_LEVEL": "WARNING",
}
STARTUP_SECONDS = 60


@dataclass(frozen=True)
class KubeServer:
    """Where the server answers and how to reach it as the operator ``kube-ops``."""

    url: str  # plain HTTP (the Python client, urllib)
    tls_url: str  # HTTPS through the relay (kubectl)
    token: str
    kubeconfig: Path  # HTTPS, trusting the relay's certificate
    ca_file: Path
    # The same server as ``kube-sub``, a submitter granted the namespace ``default``.
    submitter_kubeconfig: Path | None = None

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        token: str | None = "",
    ) -> tuple[int, dict[str, str], bytes]:
        """Make one HTTP call; return (status, headers, body) whatever the status."""
        data = json.dumps(body).encode() if body is not None else None
        sent = {"Content-Type": "application/json", **(headers or {})}
        use = self.token if token == "" else token
        if use:
            sent["Authorization"] = f"Bearer {use}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def json(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        """Make one call that must succeed; return its decoded JSON."""
        status, _, raw = self.call(method, path, body, **kwargs)
        assert status < 300, (status, raw[:500])
        return json.loads(raw)


def free_port() -> int:
    """Return a TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def manage(env: dict[str, str], *args: str) -> str:
    """Run ``manage.py`` with ``env``; return its output (the test fails when it fails)."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


_MAKE_OPERATOR = """
from django.contrib.auth.models import Group, User
user = User.objects.create_user("kube-ops", password="unused-password")
user.groups.add(Group.objects.get_or_create(name="operator")[0])
from accounts.models import NamespaceGrant
sub = User.objects.create_user("kube-sub", password="unused-password")
sub.groups.add(Group.objects.get_or_create(name="submitter")[0])
NamespaceGrant.objects.create(user=sub, namespace="default")
"""


def wait_until_up(url: str, process: subprocess.Popen[bytes]) -> None:
    """Return once ``url`` answers ``/version``; raise when the server exits or never does."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url + "/version", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"the server did not answer /version within {STARTUP_SECONDS}s")


def node(name: str) -> dict[str, Any]:
    amounts = {"cpu": "16", "memory": "64Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"capacity": amounts, "allocatable": amounts},
    }


# The namespaces the tests work in, created as an operator would before using them
# (kube-apiserver refuses objects in a namespace that does not exist).
TEST_NAMESPACES = (
    "kubectl-apply", "kubectl-apply-change", "kubectl-apply-pod", "kubectl-apply-queue",
    "kubectl-bad", "kubectl-delete-all", "kubectl-describe", "kubectl-evict", "kubectl-get",
    "kubectl-invalid",
    "kubectl-orphan", "kubectl-pods-wide", "kubectl-ssa", "kubectl-watch", "kubectl-watch-secrets",
    "kubectl-wide-pod", "kubelet-status", "py-client", "py-delete-collection", "quiet-watch",
)  # fmt: skip


def seed(server: KubeServer) -> None:
    """Namespaces, nodes, and the queue and priority class Volcano's examples name."""
    for namespace in TEST_NAMESPACES:
        server.json("POST", "/api/v1/namespaces",
                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})  # fmt: skip
    for i in range(6):
        server.json("POST", "/api/v1/nodes", node(f"kube-node-{i}"))
    for name, path in (
        ("test.yaml", "/apis/scheduling.volcano.sh/v1beta1/queues"),
        ("high-priority-class.yaml", "/apis/scheduling.k8s.io/v1/priorityclasses"),
    ):
        server.json("POST", path, yaml.safe_load((EXAMPLES / "queues" / name).read_text()))


def _tls_kubeconfig(plain: str, url: str, ca: Path) -> str:
    config = yaml.safe_load(plain)
    cluster = config["clusters"][0]["cluster"]
    cluster["server"] = url
    cluster["certificate-authority-data"] = base64.b64encode(ca.read_bytes()).decode()
    return str(yaml.safe_dump(config, sort_keys=False))


@contextmanager
def serve(directory: Path, extra_env: dict[str, str] | None = None) -> Iterator[KubeServer]:
    """Run a migrated server with the operator ``kube-ops`` in ``directory``; stop it after."""
    env = {**os.environ, **SERVER_ENV, **(extra_env or {}), "VOLCANO_DATA_DIR": str(directory)}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    copy_migrated_database(directory, env)
    manage(env, "shell", "-c", _MAKE_OPERATOR)
    port = free_port()
    plain = manage(env, "kubeconfig", "--user", "kube-ops", "--server", f"http://127.0.0.1:{port}")
    token = yaml.safe_load(plain)["users"][0]["user"]["token"]
    plain_sub = manage(
        env, "kubeconfig", "--user", "kube-sub", "--server", f"http://127.0.0.1:{port}"
    )
    log = (directory / "server.log").open("wb")
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "daphne"),
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "volcano_site.asgi:application",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    relay: TLSRelay | None = None
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_up(url, process)
        cert, key = self_signed(directory)
        relay = TLSRelay(port, cert, key).start()
        kubeconfig = directory / "kubeconfig"
        kubeconfig.write_text(_tls_kubeconfig(plain, relay.url, cert))
        submitter = directory / "kubeconfig-submitter"
        submitter.write_text(_tls_kubeconfig(plain_sub, relay.url, cert))
        yield KubeServer(url, relay.url, token, kubeconfig, cert, submitter)
    finally:
        if relay is not None:
            relay.stop()
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        log.close()


def wait_for(check: Any, *, timeout: float = 60.0, every: float = 0.3) -> Any:
    """Return ``check()``'s first truthy value, polling until ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout}s: {check}")
        time.sleep(every)


class Watcher:
    """``kubectl ... -w`` in the background, its output lines collected as they come."""

    def __init__(self, server: KubeServer, *args: str, namespace: str) -> None:
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [str(KUBECTL), "--kubeconfig", str(server.kubeconfig), "-n", namespace, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, predicate, timeout: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
        """Return whether some output line satisfied ``predicate`` within ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(predicate(line) for line in list(self.lines)):
                return True
            if self.process.poll() is not None and not self.reader.is_alive():
                return any(predicate(line) for line in self.lines)
            time.sleep(0.2)
        return False

    def stop(self) -> None:
        """Stop kubectl (and wait for it)."""
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


def kubectl(
    server: KubeServer,
    *args: str,
    namespace: str = "default",
    stdin: str | None = None,
    kubeconfig: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run kubectl once (30 s at most) with the server's kubeconfig; return the process."""
    config = kubeconfig or server.kubeconfig
    return subprocess.run(
        [str(KUBECTL), "--kubeconfig", str(config), "-n", namespace, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


@pytest.fixture
def watchers() -> Iterator[list[Watcher]]:
    """Collect background watchers and stop every one of them after the test."""
    started: list[Watcher] = []
    yield started
    for watcher in started:
        watcher.stop()
