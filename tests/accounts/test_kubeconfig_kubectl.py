"""kubectl with a kubeconfig from ``manage.py kubeconfig``, against daphne started as ``make run``
starts it: its own TLS port (``TLS_PORT``), its own certificate.

Found by a user: ``make run TLS_PORT=18401`` served 18401 while ``manage.py kubeconfig`` (run in
another shell, without ``VOLCANO_TLS_URL``) named 8443, and ``--server`` dropped the embedded
certificate, so kubectl no longer trusted the server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.kube.server_kit import KUBECTL, ROOT, free_port, manage, wait_until_up
from tests.migrated import copy_migrated_database

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")

_USER = """
from django.contrib.auth.models import Group, User
User.objects.create_user("tls-ops", password="unused-password").groups.add(
    Group.objects.get_or_create(name="operator")[0])
"""


@pytest.fixture(scope="module")
def make_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], int]]:
    """Serve as ``make run TLS_PORT=<free port>`` does; yield the environment and the TLS port.

    The environment is a second shell's: no ``VOLCANO_TLS_URL``, only the data directory.
    """
    directory = tmp_path_factory.mktemp("make-run")
    env = {**os.environ, "VOLCANO_DATA_DIR": str(directory), "DEBUG": "0", "LOG_LEVEL": "WARNING"}
    for name in ("DATABASE_URL", "REDIS_URL", "VOLCANO_TLS_URL"):
        env.pop(name, None)
    copy_migrated_database(Path(env["VOLCANO_DATA_DIR"]), env)
    manage(env, "shell", "-c", _USER)
    port, tls_port = free_port(), free_port()
    endpoint = manage(
        env, "tls_certificate", "--interface", "127.0.0.1", "--endpoint", str(tls_port)
    ).strip()
    served = {**env, "VOLCANO_TLS_URL": f"https://127.0.0.1:{tls_port}"}  # the Makefile's
    log = (directory / "server.log").open("wb")
    daphne = str(Path(sys.executable).parent / "daphne")
    process = subprocess.Popen(
        [daphne, "-b", "127.0.0.1", "-p", str(port), "-e", endpoint,
         "volcano_site.asgi:application"],
        cwd=ROOT, env=served, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        wait_until_up(f"http://127.0.0.1:{port}", process)
        yield env, tls_port
    finally:
        process.terminate()
        process.wait(timeout=15)
        log.close()


def _kubectl(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(KUBECTL), "--kubeconfig", str(config), *args],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip


def test_a_kubeconfig_made_in_another_shell_names_the_tls_port_make_run_serves(
    make_run: tuple[dict[str, str], int], tmp_path: Path
) -> None:
    env, tls_port = make_run
    config = tmp_path / "config"
    manage(env, "kubeconfig", "--user", "tls-ops", "-o", str(config))
    cluster = yaml.safe_load(config.read_text())["clusters"][0]["cluster"]
    assert cluster["server"] == f"https://127.0.0.1:{tls_port}"
    done = _kubectl(config, "get", "queues")
    assert done.returncode == 0, done.stderr
    assert "default" in done.stdout


def test_a_kubeconfig_for_another_name_of_the_server_still_trusts_its_certificate(
    make_run: tuple[dict[str, str], int], tmp_path: Path
) -> None:
    env, tls_port = make_run
    config = tmp_path / "config"
    server = f"https://localhost:{tls_port}"
    manage(env, "kubeconfig", "--user", "tls-ops", "--server", server, "-o", str(config))
    cluster = yaml.safe_load(config.read_text())["clusters"][0]["cluster"]
    assert cluster["server"] == server
    assert "certificate-authority-data" in cluster
    done = _kubectl(config, "get", "namespaces")
    assert done.returncode == 0, done.stderr
    assert "default" in done.stdout
