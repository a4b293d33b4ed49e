"""The usage plugin live: the scheduler's cache reads nodes' measured usage, which the
simulated kubelet reports from its running pods' ``volcano.sh/sim-usage``."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from core.models import Node, Pod, PodPhase
from scheduler.cache import read_snapshot, snapshot_to_scenario
from scheduler.engine import load_conf, load_scenario, run_session
from scheduler.worker import run_once
from tests.scheduler.factories import GI, make_gang, make_node, use_conf

pytestmark = pytest.mark.django_db

USAGE_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
  - name: usage
    arguments:
      usage.weight: 0
      thresholds: {cpu: 80, mem: 80}
  - name: binpack
"""


def running_pod(name: str, node: Node, *, cpu: int = 1, usage: str = "") -> Pod:
    """Return a running pod (no PodGroup: it only occupies ``node``) asking ``cpu`` cores."""
    now = timezone.now()
    container: dict[str, Any] = {
        "name": "main",
        "image": "busybox",
        "resources": {"requests": {"cpu": str(cpu), "memory": "1Gi"}},
    }
    return Pod.objects.create(
        name=name, namespace="default", node=node, phase=PodPhase.RUNNING,
        spec={"containers": [container]}, start_time=now, running_since=now,
        requests={"cpu": cpu * 1000, "memory": GI}, cpu_milli=cpu * 1000, memory_milli=GI,
        annotations={"volcano.sh/sim-usage": usage} if usage else {},
    )  # fmt: skip


def test_a_node_whose_usage_is_over_the_threshold_gets_no_new_pod() -> None:
    use_conf(USAGE_CONF)
    hot, _cool = make_node("hot"), make_node("cool")
    # One core requested but four used: hot is at 100% cpu, though only 25% requested.
    running_pod("spinning", hot, usage="400%")
    _, (pod,) = make_gang("g", replicas=1)

    run_once(reconcile=False)

    pod.refresh_from_db()
    assert pod.node is not None
    assert pod.node.name == "cool"  # binpack alone would pick the fuller hot node


def test_with_every_node_over_the_threshold_the_pod_stays_pending() -> None:
    use_conf(USAGE_CONF)
    hot = make_node("hot")
    running_pod("spinning", hot, usage="cpu=400%")
    _, (pod,) = make_gang("g", replicas=1)

    run_once(reconcile=False)

    pod.refresh_from_db()
    assert pod.node is None


def test_a_node_using_less_than_it_requests_still_takes_pods() -> None:
    use_conf(USAGE_CONF)
    busy = make_node("busy")
    running_pod("idle-reservation", busy, cpu=4, usage="10%")  # requests all 4, uses 0.4
    make_node("other", cpu=8)
    _, (pod,) = make_gang("g", replicas=1)

    run_once(reconcile=False)

    pod.refresh_from_db()
    assert pod.node is not None
    assert pod.node.name == "other"  # busy has no cpu left to request, though it is idle


def test_the_snapshot_carries_the_usage_the_metrics_api_reports(operator: Client) -> None:
    hot, cool = make_node("hot"), make_node("cool")
    running_pod("spinning", hot, cpu=2, usage="cpu=150%,memory=50%")
    running_pod("plain", cool, cpu=1)
    starting = running_pod("starting", cool, cpu=2)  # bound, not started: uses nothing yet
    Pod.objects.filter(pk=starting.pk).update(phase=PodPhase.PENDING, running_since=None)

    nodes = read_snapshot().cluster.nodes
    top = operator.get("/apis/metrics.k8s.io/v1beta1/nodes").json()

    usage = {item["metadata"]["name"]: item["usage"] for item in top["items"]}
    assert usage == {
        "cool": {"cpu": "1", "memory": "1Gi"},
        "hot": {"cpu": "3", "memory": "512Mi"},
    }
    # 3 of 4 cores and 512Mi of 16Gi; 1 of 4 cores and 1Gi of 16Gi.
    assert nodes["hot"].resource_usage.cpu_usage_avg == {"10m": 75.0}
    assert nodes["hot"].resource_usage.mem_usage_avg == {"10m": pytest.approx(100 / 32)}
    assert nodes["cool"].resource_usage.cpu_usage_avg == {"10m": 25.0}
    assert nodes["cool"].resource_usage.metrics_time is not None


def test_an_exported_snapshot_replays_with_the_same_usage_and_decision() -> None:
    hot, _cool = make_node("hot"), make_node("cool")
    running_pod("spinning", hot, usage="cpu=333%,memory=7%")
    make_gang("g", replicas=1)
    live = read_snapshot(now=timezone.now())
    text = snapshot_to_scenario(live.cluster, conf_text=USAGE_CONF, name="live")

    replay = load_scenario(text)

    assert replay.cluster.nodes["hot"].resource_usage == live.cluster.nodes["hot"].resource_usage
    expected = run_session(live.cluster, load_conf(USAGE_CONF))
    assert (
        run_session(replay.cluster, replay.conf).binds
        == expected.binds
        == {"default/g-task-0": "cool"}
    )


def test_the_snapshot_reads_a_pods_limits_for_its_estimate() -> None:
    node = make_node("n1")
    _, (pod,) = make_gang("g", replicas=1, phase="Running")
    container = {
        "name": "main",
        "image": "busybox",
        "resources": {
            "requests": {"cpu": "1", "memory": "1Gi"},
            "limits": {"cpu": "3", "memory": "2Gi"},
        },
    }
    Pod.objects.filter(pk=pod.pk).update(node=node, spec={"containers": [container]})  # bound

    live = read_snapshot(now=timezone.now()).cluster
    replay = load_scenario(snapshot_to_scenario(live, conf_text=USAGE_CONF, name="live")).cluster

    (task,) = live.nodes["n1"].tasks.values()
    assert task.limits is not None
    assert (task.limits.get("cpu"), task.limits.get("memory")) == (3000, 2 * GI)
    (replayed,) = replay.nodes["n1"].tasks.values()
    assert replayed.limits == task.limits
