"""Attacks against a running server (daphne, the real ASGI stack): each hostile body gets its
Status, nothing is stored, the server's memory stays bounded and another client keeps being
answered meanwhile."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apis.yaml_kit import LAUGHS
from tests.browser.server import ConsoleServer, run_console

JOBS = "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
MAX_GROWTH_KB = 60 * 1024  # a few tens of MB, whatever the attack would expand to


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ConsoleServer, str]]:
    for running in run_console(
        tmp_path_factory.mktemp("attacked"), extra_env={"VOLCANO_EMBEDDED_SCHEDULER": "0"}
    ):
        running.make_user("mallory", "operator")
        config = running.manage("kubeconfig", "--user", "mallory", "--server", running.url)
        token = yaml.safe_load(config)["users"][0]["user"]["token"]
        yield running, token


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _send(server: ConsoleServer, token: str, body: bytes, content_type: str) -> tuple[int, Any]:
    request = urllib.request.Request(
        server.url + JOBS, data=body, method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": content_type},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return int(error.code), json.loads(error.read())


def _count_jobs(server: ConsoleServer, token: str) -> int:
    request = urllib.request.Request(
        server.url + JOBS, headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return len(json.loads(response.read())["items"])


ATTACKS = [
    ("alias bomb", LAUGHS.encode(), "application/yaml", 400),
    ("deep yaml", b"[" * 1_000_000 + b"]" * 1_000_000, "application/yaml", 400),
    ("deep json", b"[" * 1_000_000 + b"]" * 1_000_000, "application/json", 400),
    (
        "huge integer",
        b'{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"x"},'
        b'"spec":{"minAvailable":' + b"9" * 100_000 + b"}}",
        "application/json",
        422,
    ),
    (
        "infinite float",
        b'{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"x"},'
        b'"spec":{"minAvailable":1e400}}',
        "application/json",
        422,
    ),
    ("over the size limit", b"{" + b" " * (4 * 1024 * 1024) + b"}", "application/json", 413),
]


def test_every_attack_is_answered_and_the_server_stays_small_and_responsive(
    server: tuple[ConsoleServer, str],
) -> None:
    console, token = server
    before = _rss_kb(console.pid)
    stop = threading.Event()
    answers: list[int] = []

    def bystander() -> None:  # another client, asking all along
        while not stop.is_set():
            started = time.monotonic()
            with urllib.request.urlopen(console.url + "/version", timeout=10) as response:
                answers.append(int(response.status))
            time.sleep(max(0.0, 0.05 - (time.monotonic() - started)))

    thread = threading.Thread(target=bystander, daemon=True)
    thread.start()
    try:
        for name, body, content_type, code in ATTACKS:
            status, payload = _send(console, token, body, content_type)
            assert (name, status) == (name, code), payload
            assert payload["kind"] == "Status"
            assert payload["code"] == code
    finally:
        stop.set()
        thread.join(timeout=15)
    growth = _rss_kb(console.pid) - before
    assert growth < MAX_GROWTH_KB, f"the server grew by {growth} kB"
    assert answers
    assert set(answers) == {200}
    assert _count_jobs(console, token) == 0
