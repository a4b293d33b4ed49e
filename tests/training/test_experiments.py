"""The two experiments the project started from, replayed with kubectl as they were run.

A PyTorchJob of six pods (one Master, five Workers, 1Gi each) fills the queue ``test``
(8Gi). Then:

1. A default-priority job and, after it, a ``high-priority`` one are created: when the
   first ends, the later high-priority job runs before the earlier default one.
2. A six-pod job waits; the same PyTorchJob without Workers (one pod) is created after
   it and runs first, because it fits in what is left (2Gi).

Each is watched as it was: ``kubectl get pytorchjob -w`` (NAME, STATE, AGE) and
``kubectl get podgroup -owide -w`` (the PodGroups' phases, MINMEMBER 6).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.kube.server_kit import KubeServer, Watcher, kubectl

ROOT = Path(__file__).resolve().parents[2]
JOBS = ROOT / "jobs" / "examples"
SIX = (JOBS / "pytorchjob-queue-test.yaml").read_text()
HIGH = (JOBS / "pytorchjob-high-priority.yaml").read_text()
Start = Callable[..., Watcher]
ONE = (JOBS / "pytorchjob-master-only.yaml").read_text()


def _named(text: str, old: str, new: str) -> str:
    return text.replace(f"name: {old}\n", f"name: {new}\n", 1)


def _create(server: KubeServer, text: str, namespace: str) -> str:
    done = kubectl(server, "create", "-f", "-", namespace=namespace, stdin=text)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _cells(line: str) -> list[str]:
    return line.split()


def _first_running(watcher: Watcher) -> list[str]:
    """Return job names in the order ``kubectl get pytorchjob -w`` first showed them Running."""
    order: list[str] = []
    for line in list(watcher.lines):
        cells = _cells(line)
        if len(cells) >= 2 and cells[1] == "Running" and cells[0] not in order:
            order.append(cells[0])
    return order


def _running(name: str) -> Callable[[str], bool]:
    return lambda line: _cells(line)[:2] == [name, "Running"]


def _group_phases(watcher: Watcher, name: str) -> list[str]:
    """Return the phases ``kubectl get podgroup -owide -w`` printed for ``name``, deduplicated."""
    phases: list[str] = []
    for line in list(watcher.lines):
        cells = _cells(line)
        if cells and cells[0] == name and len(cells) > 1 and (not phases or phases[-1] != cells[1]):
            phases.append(cells[1])
    return phases


@pytest.fixture
def watch(training_server: KubeServer, watchers: list[Watcher]) -> Start:
    """Return ``watch(namespace, *args)``: a background ``kubectl get ... -w``."""

    def start(namespace: str, *args: str) -> Watcher:
        watcher = Watcher(training_server, "get", *args, "-w", namespace=namespace)
        watchers.append(watcher)
        return watcher

    return start


def test_a_later_high_priority_job_runs_before_an_earlier_default_one(
    training_server: KubeServer, watch: Start
) -> None:
    namespace = "exp-priority"
    jobs = watch(namespace, "pytorchjob")
    groups = watch(namespace, "podgroup", "-owide")
    # The first job runs twice as long as the example (10 simulated minutes, 10 s here), so
    # that it still holds the queue when the two later jobs arrive on a loaded machine.
    assert (
        _create(training_server, SIX.replace("sleep 5m", "sleep 10m"), namespace)
        == "pytorchjob.kubeflow.org/pytorch-dist-mnist created"
    )
    assert jobs.wait_for(_running("pytorch-dist-mnist"), timeout=60), jobs.lines
    # One kubectl call creates both, the default job first, then the high-priority one.
    later = _named(SIX, "pytorch-dist-mnist", "pytorch-default") + "\n---\n" + HIGH
    assert _create(training_server, later, namespace).splitlines() == [
        "pytorchjob.kubeflow.org/pytorch-default created",
        "pytorchjob.kubeflow.org/pytorch-dist-mnist-high created",
    ]
    assert jobs.wait_for(_running("pytorch-default"), timeout=90), jobs.lines
    assert _first_running(jobs) == [
        "pytorch-dist-mnist",
        "pytorch-dist-mnist-high",
        "pytorch-default",
    ]
    # The PodGroup turns Running at the session after its pods run (the job may show it first).
    assert groups.wait_for(_running("pytorch-default"), timeout=30), groups.lines
    header = groups.lines[0].split()
    assert header[:3] == ["NAME", "STATUS", "MINMEMBER"], groups.lines[0]
    rows = [line.split() for line in groups.lines[1:]]
    assert all(row[2] == "6" for row in rows)
    # Both later jobs waited Pending while the first held the queue; the high one went first.
    assert _group_phases(groups, "pytorch-dist-mnist")[-1] == "Completed"
    # (Inqueue shows unless one session admits the group and binds its pods: then the status
    # the session writes is Running, as Volcano's does)
    assert _group_phases(groups, "pytorch-dist-mnist-high") in (
        ["Pending", "Inqueue", "Running", "Completed"], ["Pending", "Running", "Completed"]
    )  # fmt: skip
    assert _group_phases(groups, "pytorch-default")[:3] == ["Pending", "Inqueue", "Running"]


def test_a_later_one_pod_job_that_fits_runs_before_a_waiting_six_pod_job(
    training_server: KubeServer, watch: Start
) -> None:
    namespace = "exp-fit"
    jobs = watch(namespace, "pytorchjob")
    groups = watch(namespace, "podgroup", "-owide")
    _create(training_server, SIX, namespace)
    assert jobs.wait_for(_running("pytorch-dist-mnist"), timeout=60), jobs.lines
    _create(training_server, _named(SIX, "pytorch-dist-mnist", "pytorch-waiting"), namespace)
    _create(training_server, ONE, namespace)
    assert jobs.wait_for(_running("pytorch-master-only"), timeout=60), jobs.lines
    assert "pytorch-waiting" not in _first_running(jobs)  # still waiting for the queue
    assert _group_phases(groups, "pytorch-waiting")[0] == "Pending"
    assert jobs.wait_for(_running("pytorch-waiting"), timeout=90), jobs.lines
    assert _first_running(jobs) == ["pytorch-dist-mnist", "pytorch-master-only", "pytorch-waiting"]
