"""Debian's ``prometheus`` for tests: started on a free loopback port, scraping our live server.

The scrape configuration is the README's (section "Prometheus"): job ``volcano`` reads
``/metrics``, job ``kube-state-metrics`` reads ``/metrics/kube-state-metrics`` and job
``kubernetes-apiservers`` reads ``/metrics/apiserver``, every second so a test waits seconds,
not minutes. Without the binary every test that
asks for it skips, naming what is missing.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
MISSING = (
    f"Prometheus is not installed ({PROMETHEUS} is missing): "
    "apt-get install prometheus (.ci/run does it when it can)"
)
STARTUP_SECONDS = 30

CONFIG = """\
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: volcano
    metrics_path: /metrics
    scheme: http
    static_configs:
      - targets: ["{target}"]
  - job_name: kube-state-metrics
    metrics_path: /metrics/kube-state-metrics
    scheme: http
    static_configs:
      - targets: ["{target}"]
  - job_name: kubernetes-apiservers
    metrics_path: /metrics/apiserver
    scheme: http
    static_configs:
      - targets: ["{target}"]
"""


def installed() -> bool:
    """Return whether the prometheus binary is there."""
    return Path(PROMETHEUS).exists()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def api(url: str, path: str, **params: str) -> Any:
    """Return the ``data`` of one Prometheus API call (an assertion error names a failure)."""
    full = f"{url}{path}?{urllib.parse.urlencode(params)}"
    with urllib.request.urlopen(full, timeout=10) as response:
        body = json.loads(response.read())
    assert body["status"] == "success", body
    return body["data"]


@contextmanager
def run_prometheus(directory: Path, target: str) -> Iterator[str]:
    """Start Prometheus scraping ``target`` (host:port); yield its URL; stop it."""
    config = directory / "prometheus.yml"
    config.write_text(CONFIG.format(target=target))
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = (directory / "prometheus.log").open("wb")
    process = subprocess.Popen(
        [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={directory / 'data'}",
         f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=1h",
         "--web.enable-lifecycle"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if process.poll() is not None:
                log.flush()
                raise RuntimeError(
                    f"prometheus exited with {process.returncode}: "
                    + (directory / "prometheus.log").read_text()[-2000:]
                )
            try:
                with urllib.request.urlopen(f"{url}/-/ready", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("prometheus did not get ready") from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        log.close()


def stop_scraping(directory: Path, url: str) -> None:
    """Reload the Prometheus of ``run_prometheus(directory, ...)`` with no target: what it scraped
    stays queryable, and the live server's database is read by nobody while tests flush it (a
    scrape's reads meeting the flush's TRUNCATE deadlocked on PostgreSQL)."""
    (directory / "prometheus.yml").write_text(
        CONFIG.split("scrape_configs:")[0] + "scrape_configs: []\n"
    )
    request = urllib.request.Request(f"{url}/-/reload", method="POST")
    with urllib.request.urlopen(request, timeout=10):
        pass


def wait_for_targets(url: str, jobs: int = 3, timeout: float = 20.0) -> None:
    """Wait until every scrape job is up (``up == 1``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        up = api(url, "/api/v1/query", query="up == 1")["result"]
        if len(up) >= jobs:
            return
        time.sleep(0.3)
    targets = api(url, "/api/v1/targets")
    raise AssertionError(f"scrape targets are not up: {targets}")
