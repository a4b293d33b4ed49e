"""Concurrent writers never see a 500: twenty clients create, list and delete jobs against a
running server on PostgreSQL while its scheduler binds, and every answer is counted."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

from django.contrib.auth.models import Group, User

from accounts.services import token_create
from core.namespaces import ensure_namespaces
from jobs.models import Job
from tests.browser.server import free_port
from tests.distributed.celery_kit import REPO, Stack
from tests.e2e.stack import nodes
from tests.scheduler.factories import make_queue

CLIENTS = 20
SECONDS = 12
JOBS = "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"


def _job(name: str) -> bytes:
    return json.dumps({
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"minAvailable": 2, "queue": "default", "tasks": [{"name": "w", "replicas": 2,
                 "template": {"metadata": {"annotations": {"volcano.sh/sim-duration": "30s"}},
                              "spec": {"containers": [{"name": "w", "image": "busybox",
                                       "resources": {"requests": {"cpu": "100m"}}}]}}}]},
    }).encode()  # fmt: skip


def _call(url: str, token: str, method: str, body: bytes | None = None) -> int:
    request = urllib.request.Request(
        url, data=body, method=method,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.read()
        return int(error.code)


def test_twenty_clients_writing_while_the_scheduler_runs_get_no_5xx(stack: Stack) -> None:
    ensure_namespaces(["default"])
    make_queue("default")
    nodes(4, cpu=64)
    user = User.objects.create_user("load")
    user.groups.add(Group.objects.get_or_create(name="operator")[0])
    _, token = token_create(user=user, name="load")
    port = free_port()
    env = {**stack.env, "VOLCANO_EMBEDDED_SCHEDULER": "1", "VOLCANO_SCHEDULE_PERIOD": "0.2",
           "VOLCANO_SIM_SPEED": "60", "LOG_LEVEL": "WARNING"}  # fmt: skip
    log = (stack.workdir / "daphne.log").open("wb")
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "daphne"), "-b", "127.0.0.1", "-p", str(port),
         "volcano_site.asgi:application"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    codes: Counter[tuple[str, int]] = Counter()
    created: set[str] = set()
    deleted: set[str] = set()
    lock = threading.Lock()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(url + "/version", timeout=2).read()
                break
            except OSError:
                time.sleep(0.3)

        def client(index: int) -> None:
            n = 0
            end = time.monotonic() + SECONDS
            while time.monotonic() < end:
                name = f"load-{index}-{n}"
                n += 1
                code = _call(url + JOBS, token, "POST", _job(name))
                with lock:
                    codes["create", code] += 1
                    if code == 201:
                        created.add(name)
                codes["list", _call(url + JOBS + "?limit=50", token, "GET")] += 1
                if n % 2 == 0:
                    victim = f"load-{index}-{n - 2}"
                    code = _call(f"{url}{JOBS}/{victim}", token, "DELETE")
                    with lock:
                        codes["delete", code] += 1
                        if code == 200:
                            deleted.add(victim)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=SECONDS + 60)
    finally:
        server.terminate()
        server.wait(timeout=15)
        log.close()
    errors = {key: n for key, n in codes.items() if key[1] >= 500}
    assert not errors, (errors, (stack.workdir / "daphne.log").read_text()[-3000:])
    assert sum(codes.values()) > CLIENTS * 10  # the load really ran
    assert codes["create", 201] == len(created) > 0
    remaining = set(Job.objects.filter(name__startswith="load-").values_list("name", flat=True))
    assert remaining == created - deleted  # nothing lost, nothing left that was deleted
