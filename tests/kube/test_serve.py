"""``manage.py serve --workers 2``: two daphne processes on one port, one watch across them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.kube.serve_kit import StreamReader, running, served
from tests.kube.server_kit import ROOT, wait_for

CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"


def config_map(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "1"}}


def test_two_workers_share_the_port_and_a_write_on_one_reaches_a_watch_on_the_other(
    tmp_path: Path,
) -> None:
    with served(tmp_path, workers=2) as server:
        first, second = server.children()
        # Only the first worker accepts while the second is stopped: the watch is held there.
        os.kill(second, signal.SIGSTOP)
        watch = StreamReader(server, f"{CONFIG_MAPS}?watch=1&timeoutSeconds=60").start()
        os.kill(second, signal.SIGCONT)
        # Only the second accepts now: the write is served by the other process.
        os.kill(first, signal.SIGSTOP)
        try:
            status, body = server.call("POST", CONFIG_MAPS, config_map("across"))
        finally:
            os.kill(first, signal.SIGCONT)
        assert status == 201, body
        assert watch.saw('"name":"across"')


def test_a_crashed_worker_is_started_again(tmp_path: Path) -> None:
    with served(tmp_path, workers=2) as server:
        crashed = server.children()[0]
        os.kill(crashed, signal.SIGKILL)
        wait_for(lambda: len(server.children()) == 2 and crashed not in server.children())
        assert server.call("GET", CONFIG_MAPS)[0] == 200


def test_sigterm_stops_every_worker_and_the_supervisor(tmp_path: Path) -> None:
    with served(tmp_path, workers=2) as server:
        children = server.children()
        assert len(children) == 2
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=30) == 0
        time.sleep(0.2)
        assert not [pid for pid in children if running(pid)]


@pytest.mark.parametrize(
    ("option", "environment", "named"),
    [("-1", "", "--workers"), ("0", "many", "VOLCANO_WEB_WORKERS")],
)
def test_a_bad_worker_count_is_refused_naming_it(
    tmp_path: Path, option: str, environment: str, named: str
) -> None:
    env = {**os.environ, "VOLCANO_DATA_DIR": str(tmp_path), "VOLCANO_WEB_WORKERS": environment}
    done = subprocess.run(
        [sys.executable, "manage.py", "serve", "--workers", option],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode != 0
    assert named in done.stderr
