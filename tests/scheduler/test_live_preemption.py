"""Volcano's e2e preemption and queue-guarantee cases, run live: controller, worker, kubelet.

Each test submits VolcanoJobs through the service every entry point uses and then lets the
system run as it does in production: one ``run_once`` (controller reconcile, then a scheduling
session against the database snapshot) and one simulated-kubelet tick per simulated second.
The configuration is the one Volcano's e2e suite schedules preemption with: actions
``allocate, backfill, reclaim, preempt`` (no enqueue, no overcommit), gang and drf not voting
on victims.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

import pytest

from core.models import Pod
from core.models.priority_class import PriorityClass
from kubelet import runtime
from scheduler.cache import read_snapshot
from scheduler.engine.api.types import TaskStatus
from scheduler.worker import run_once
from tests.jobs.controller_kit import submit, task
from tests.scheduler.factories import GI, make_node, make_queue, use_conf

pytestmark = pytest.mark.django_db

E2E_PREEMPT_CONF = """\
actions: "allocate, backfill, reclaim, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""

START = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


class Cluster:
    """Two 2-CPU nodes and a clock; ``run`` plays the worker and the kubelet second by second."""

    def __init__(self) -> None:
        self.now = START
        make_node("n1", cpu=2)
        make_node("n2", cpu=2)
        PriorityClass.objects.create(name="low-priority", value=10)
        PriorityClass.objects.create(name="high-priority", value=1000)

    def run(self, seconds: int) -> tuple[int, int]:
        """Run ``seconds`` cycles; return (binds, evictions) the sessions recorded."""
        binds = evictions = 0
        for _ in range(seconds):
            self.now += dt.timedelta(seconds=1)
            record = run_once(now=self.now).record
            assert record is not None
            assert record.error == ""
            binds, evictions = binds + record.binds, evictions + record.evictions
            runtime.tick(now=self.now)
        return binds, evictions


def job(name: str, *, priority: str, min_available: int, queue: str = "default",
        pod_spec: dict[str, Any] | None = None) -> None:  # fmt: skip
    """Submit a job of four 1-CPU pods, as Volcano's e2e ``preemption basic`` case does."""
    worker = task("w", 4)
    worker["template"]["spec"].update(pod_spec or {})
    submit(name, [worker], minAvailable=min_available, priorityClassName=priority, queue=queue)


def running(prefix: str) -> int:
    """Return how many live pods of the job ``prefix`` run on a node."""
    pods = Pod.objects.filter(name__startswith=f"{prefix}-", phase="Running")
    return pods.filter(deletion_time__isnull=True, node__isnull=False).count()


@pytest.fixture
def cluster() -> Cluster:
    use_conf(E2E_PREEMPT_CONF)
    return Cluster()


def fill_with_low_priority_job(cluster: Cluster, queue: str = "default") -> None:
    job("preemptee", priority="low-priority", min_available=1, queue=queue)
    cluster.run(3)
    assert running("preemptee") == 4


def test_high_priority_gang_evicts_two_low_priority_pods_and_runs_half(cluster: Cluster) -> None:
    fill_with_low_priority_job(cluster)

    job("preemptor", priority="high-priority", min_available=2)
    binds, evictions = cluster.run(5)

    assert evictions == 2
    assert running("preemptor") == 2
    assert running("preemptee") == 2
    assert binds == 2


def test_preemption_stays_inside_a_queue(cluster: Cluster) -> None:
    make_queue("other", reclaimable=False)  # else reclaim takes back the default queue's share
    fill_with_low_priority_job(cluster, queue="other")

    job("preemptor", priority="high-priority", min_available=2)
    _, evictions = cluster.run(4)

    assert evictions == 0
    assert running("preemptee") == 4
    assert running("preemptor") == 0


def test_a_gated_preemptor_evicts_nothing_until_its_gates_are_removed(cluster: Cluster) -> None:
    fill_with_low_priority_job(cluster)

    job("preemptor", priority="high-priority", min_available=2,
        pod_spec={"schedulingGates": [{"name": "example.com/wait"}]})  # fmt: skip
    _, evictions = cluster.run(4)

    assert evictions == 0
    assert running("preemptee") == 4
    for pod in Pod.objects.filter(name__startswith="preemptor-"):
        pod.spec = {k: v for k, v in pod.spec.items() if k != "schedulingGates"}
        pod.save()
    _, evictions = cluster.run(4)
    assert evictions == 2
    assert running("preemptor") == 2


def test_preemption_policy_never_evicts_nothing(cluster: Cluster) -> None:
    fill_with_low_priority_job(cluster)

    job("preemptor", priority="high-priority", min_available=2,
        pod_spec={"preemptionPolicy": "Never"})  # fmt: skip
    _, evictions = cluster.run(4)

    assert evictions == 0
    assert running("preemptee") == 4
    assert running("preemptor") == 0


def test_a_class_whose_policy_is_never_evicts_nothing_whatever_the_template_says(
    cluster: Cluster,
) -> None:
    PriorityClass.objects.create(name="high-never", value=1000, preemption_policy="Never")
    fill_with_low_priority_job(cluster)

    job("preemptor", priority="high-never", min_available=2,
        pod_spec={"preemptionPolicy": "PreemptLowerPriority"})  # fmt: skip
    _, evictions = cluster.run(4)

    assert evictions == 0
    assert running("preemptee") == 4
    spec = Pod.objects.filter(name__startswith="preemptor-").first().spec  # type: ignore[union-attr]
    assert (spec["priorityClassName"], spec["preemptionPolicy"]) == ("high-never", "Never")


def test_a_queue_guarantee_keeps_the_cluster_from_other_queues_jobs() -> None:
    """Volcano's proportion e2e case: one queue's guarantee reserves all cluster resource."""
    use_conf(
        'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: priority\n'
        "  - name: gang\n  - name: conformance\n- plugins:\n  - name: drf\n"
        "  - name: predicates\n  - name: proportion\n  - name: nodeorder\n"
    )
    cluster = Cluster()
    make_queue("reserved", guarantee={"cpu": 4000, "memory": 32 * GI})
    make_queue("other")
    small = task("w", 1)
    small["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "500m"
    submit("other-job", [small], queue="other")

    cluster.run(4)

    assert Pod.objects.filter(name__startswith="other-job-", node__isnull=False).count() == 0


def test_a_pipelined_preemptor_keeps_its_nominated_node_while_its_victims_terminate(
    cluster: Cluster,
) -> None:
    """Issue 16: victims that run out a grace period; 35 simulated seconds of live sessions.

    The preemptor is pipelined onto the node its victims free and nominated there
    (status.nominatedNodeName); the next sessions read that reservation, preempt nothing more
    while the victims terminate, and bind the preemptor there once they are gone. Each victim
    is evicted once: no pod is evicted again after the controller recreated it.
    """
    slow = {"terminationGracePeriodSeconds": 10}
    low = task("w", 4)
    low["template"]["spec"].update(slow)
    low["template"]["metadata"] = {
        "annotations": {"volcano.sh/sim-ignore-sigterm": "true", "volcano.sh/sim-duration": "10m"}
    }
    submit("preemptee", [low], minAvailable=1, priorityClassName="low-priority")
    cluster.run(3)
    assert running("preemptee") == 4
    high = task("w", 2)
    high["template"]["metadata"] = {"annotations": {"volcano.sh/sim-duration": "10m"}}
    submit("preemptor", [high], minAvailable=2, priorityClassName="high-priority")
    evicted: Counter[str] = Counter()
    nominated: dict[str, str] = {}
    for second in range(35):
        cluster.now += dt.timedelta(seconds=1)
        summary = run_once(now=cluster.now)
        assert summary.decisions is not None
        evicted.update(e.task for e in summary.decisions.evictions)
        runtime.tick(now=cluster.now)
        if second == 3:  # victims still terminating: what the next session reads
            tasks = [t for j in read_snapshot(now=cluster.now).cluster.jobs.values()
                     for t in j.tasks.values() if t.name.startswith("preemptor-")]  # fmt: skip
            nominated = {t.name: t.nominated_node_name for t in tasks}
            assert all(t.status == TaskStatus.PENDING for t in tasks)

    assert sum(evicted.values()) == 2
    assert max(evicted.values()) == 1
    placed = dict(Pod.objects.filter(name__startswith="preemptor-", phase="Running")
                  .values_list("name", "node__name"))  # fmt: skip
    assert len(placed) == 2
    assert nominated == placed  # bound where the pipelining session nominated it
    assert running("preemptee") == 2
