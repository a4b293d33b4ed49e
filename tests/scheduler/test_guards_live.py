"""Issue 29's guards live: PodDisruptionBudgets, ResourceQuotas, tdm zones and cool-downs read by
the worker's snapshot, through controllers, worker sessions and the simulated kubelet.

Each test submits VolcanoJobs as the API does and lets the system run second by second on a
simulated clock, as ``test_live_preemption`` does: ``run_once(now=...)`` (the controllers, among
them the disruption and quota controllers, then a session on the database snapshot) and one
kubelet tick. Jumping the clock forward is how a tdm window closes or a cool-down runs out.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.test import Client

from core.models import Event, Pod, PodDisruptionBudget, ResourceQuota
from core.models.priority_class import PriorityClass
from jobs.services import job_submit
from kubelet import runtime
from queues.models import PodGroup
from scheduler import worker
from scheduler.cache import read_snapshot, snapshot_to_scenario
from scheduler.engine import load_scenario
from scheduler.engine.framework.memory import PluginMemory
from scheduler.worker import run_once
from tests.scheduler.factories import TEST_CONF, make_gang, make_node, use_conf

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
JSON = "application/json"

PREEMPT_TIERS = """\
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
  - name: {guard}
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
"""


def preempt_conf(guard: str) -> str:
    """Volcano's e2e preemption configuration with ``guard`` voting on victims in tier one."""
    return 'actions: "allocate, backfill, reclaim, preempt"\n' + PREEMPT_TIERS.format(guard=guard)


class Cluster:
    """A clock that plays the worker and the kubelet; a fresh scheduler process (plugin memory)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = START
        monkeypatch.setattr(worker, "_PLUGIN_MEMORY", PluginMemory())
        PriorityClass.objects.create(name="low-priority", value=10)
        PriorityClass.objects.create(name="high-priority", value=1000)

    def run(self, seconds: int, *, step: int = 1) -> int:
        """Run a cycle every ``step`` simulated seconds for ``seconds``; return the evictions."""
        evictions = 0
        for _ in range(seconds // step):
            self.now += dt.timedelta(seconds=step)
            record = run_once(now=self.now).record
            assert record is not None
            assert record.error == ""
            evictions += record.evictions
            runtime.tick(now=self.now)
        return evictions

    def jump(self, to: dt.datetime) -> None:
        """Move the clock to just before ``to`` (the next ``run`` step lands on or after it)."""
        assert to > self.now
        self.now = to - dt.timedelta(seconds=1)


def submit(name: str, replicas: int, *, priority: str = "", min_available: int = 1,
           labels: dict[str, str] | None = None, pod_annotations: dict[str, str] | None = None,
           job_annotations: dict[str, str] | None = None) -> None:  # fmt: skip
    """Submit a job of ``replicas`` 1-CPU pods in ``default`` that run a day unless told."""
    container = {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
    template: dict[str, Any] = {"spec": {"containers": [container], "restartPolicy": "Never"}}
    annotations = {"volcano.sh/sim-duration": "24h", **(pod_annotations or {})}
    template["metadata"] = {"labels": labels or {}, "annotations": annotations}
    spec: dict[str, Any] = {
        "minAvailable": min_available,
        "tasks": [{"name": "w", "replicas": replicas, "template": template}],
    }
    if priority:
        spec["priorityClassName"] = priority
    job_submit(
        manifest={
            "apiVersion": "batch.volcano.sh/v1alpha1",
            "kind": "Job",
            "metadata": {"name": name, "annotations": job_annotations or {}},
            "spec": spec,
        }
    )


def running(prefix: str) -> int:
    """Return how many live pods of the job ``prefix`` run on a node."""
    pods = Pod.objects.filter(name__startswith=f"{prefix}-", phase="Running")
    return pods.filter(deletion_time__isnull=True, node__isnull=False).count()


def post(client: Client, path: str, body: dict[str, Any]) -> None:
    answer = client.post(path, json.dumps(body), content_type=JSON)
    assert answer.status_code == 201, answer.content


# --- 1. PodDisruptionBudget ----------------------------------------------------------------------
@pytest.mark.parametrize(("budget", "evicted"), [(True, 1), (False, 2)])
def test_a_budget_of_one_disruption_lets_preemption_take_one_pod_not_two(
    monkeypatch: pytest.MonkeyPatch, operator: Client, budget: bool, evicted: int
) -> None:
    use_conf(preempt_conf("pdb"))
    cluster = Cluster(monkeypatch)
    make_node("n1", cpu=4)
    submit("low", 4, priority="low-priority", labels={"app": "low"})
    if budget:  # three of the four must stay up: one disruption allowed
        post(operator, "/apis/policy/v1/namespaces/default/poddisruptionbudgets", {
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "low"},
            "spec": {"minAvailable": 3, "selector": {"matchLabels": {"app": "low"}}},
        })  # fmt: skip
    cluster.run(4)  # the last second's controllers see them all Ready
    assert running("low") == 4
    if budget:
        assert PodDisruptionBudget.objects.get(name="low").disruptions_allowed == 1

    submit("first", 1, priority="high-priority")
    evictions = cluster.run(5)
    submit("second", 1, priority="high-priority")
    evictions += cluster.run(5)

    assert evictions == evicted
    assert running("low") == 4 - evicted
    assert running("first") == 1
    assert running("second") == (0 if budget else 1)


# --- 2. ResourceQuota ----------------------------------------------------------------------------
QUOTA_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
  - name: resourcequota
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""


def test_a_quota_keeps_a_job_pending_until_another_finishes(
    monkeypatch: pytest.MonkeyPatch, operator: Client
) -> None:
    use_conf(QUOTA_CONF)
    cluster = Cluster(monkeypatch)
    make_node("n1", cpu=8)
    post(operator, "/api/v1/namespaces/default/resourcequotas", {
        "apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "compute"},
        "spec": {"hard": {"requests.cpu": "2"}},
    })  # fmt: skip
    submit("first", 2, min_available=2, pod_annotations={"volcano.sh/sim-duration": "20s"})
    cluster.run(3)
    assert running("first") == 2
    assert ResourceQuota.objects.get(name="compute").used == {"requests.cpu": 2000}

    submit("second", 2, min_available=2)
    cluster.run(5)

    group = PodGroup.objects.get(job__name="second")
    assert group.phase == "Pending"  # not enqueued: no pods made, though n1 has room
    assert not Pod.objects.filter(name__startswith="second-").exists()
    events = Event.objects.filter(involved_kind="PodGroup", involved_name=group.name)
    (event,) = events.filter(type="Normal")
    assert event.reason == "Unschedulable"
    assert event.message == (
        "resource quota insufficient, requested: map[requests.cpu:2], used: "
        "map[requests.cpu:2], limited: map[requests.cpu:2] (ResourceQuota default/compute)"
    )
    assert event.count >= 4  # once a session, folded into one event as client-go does
    assert event.source == "volcano-scheduler"

    cluster.run(20)  # the first job's pods end

    assert not running("first")
    assert running("second") == 2
    assert PodGroup.objects.get(job__name="second").phase == "Running"


# --- 3. tdm --------------------------------------------------------------------------------------
TDM_CONF = """\
actions: "enqueue, allocate, backfill, shuffle"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
  - name: tdm
    enabledVictim: true
    arguments:
      tdm.revocable-zone.rz1: "11:00-12:10"
      tdm.evict.period: "1m"
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""


def test_a_closing_zone_evicts_its_revocable_pods_within_the_jobs_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_conf(TDM_CONF)
    cluster = Cluster(monkeypatch)
    make_node("spot", cpu=4, labels={"volcano.sh/revocable-zone": "rz1"})
    submit("spot", 4, pod_annotations={"volcano.sh/revocable-zone": "*"},
           job_annotations={"volcano.sh/preemptable": "true",
                            "volcano.sh/jdb-max-unavailable": "2"})  # fmt: skip
    assert cluster.run(3) == 0  # the window is open: the revocable node takes them
    assert running("spot") == 4

    cluster.jump(dt.datetime(2026, 1, 1, 12, 10, 30, tzinfo=dt.UTC))  # the window has closed
    evictions = cluster.run(180, step=10)  # three evict periods

    assert evictions == 2  # the job's budget; its pods made again stay pending (zone closed)
    assert running("spot") == 2
    messages = Event.objects.filter(involved_kind="Pod", reason="Evict")
    assert messages.count() == 2
    assert all("shuffle (tdm)" in e.message for e in messages)


# --- 4. cdp --------------------------------------------------------------------------------------
def test_a_cooling_down_pod_survives_preemption_until_its_time_is_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_conf(preempt_conf("cdp"))
    cluster = Cluster(monkeypatch)
    make_node("n1", cpu=1)
    submit("cool", 1, priority="low-priority", labels={"volcano.sh/cooldown-time": "60s"})
    cluster.run(1)  # bound at START + 1s: PodScheduled=True from then
    scheduled = START + dt.timedelta(seconds=1)
    cluster.run(2)
    assert running("cool") == 1

    submit("urgent", 1, priority="high-priority")
    evicted_at = None
    while evicted_at is None and cluster.now < START + dt.timedelta(minutes=3):
        if cluster.run(5, step=5):
            evicted_at = cluster.now

    assert evicted_at is not None
    cooldown_over = scheduled + dt.timedelta(seconds=60)
    assert cooldown_over <= evicted_at < cooldown_over + dt.timedelta(seconds=5)
    cluster.run(5)
    assert running("urgent") == 1


# --- what the snapshot reads, and its export ------------------------------------------------------
def test_the_snapshot_reads_the_guards_inputs_and_its_export_replays_them() -> None:
    node = make_node("n1")
    group, (pod,) = make_gang("g", replicas=1, phase="Running")
    PodGroup.objects.filter(pk=group.pk).update(
        labels={"volcano.sh/preemptable": "false"},
        min_resources={"cpu": 1000, "requests.cpu": 1000, "count/pods": 1000, "pods": 1000},
    )
    stamp = "2026-01-01T11:59:00Z"
    Pod.objects.filter(pk=pod.pk).update(
        node=node, phase="Running", labels={"volcano.sh/cooldown-time": "5m", "app": "g"},
        conditions=[{"type": "PodScheduled", "status": "True", "lastTransitionTime": stamp}],
    )  # fmt: skip
    PodDisruptionBudget.objects.create(
        namespace="default", name="g", disruptions_allowed=1, disrupted_pods={"g-task-9": stamp},
        spec={"minAvailable": 1, "selector": {"matchExpressions": [
            {"key": "app", "operator": "In", "values": ["g"]}]}},
    )  # fmt: skip
    PodDisruptionBudget.objects.create(namespace="default", name="none", spec={})
    ResourceQuota.objects.create(
        namespace="default", name="compute", hard={"requests.cpu": 4000},
        status_hard={"requests.cpu": 4000}, used={"requests.cpu": 1000},
    )  # fmt: skip

    live = read_snapshot(now=START).cluster
    replay = load_scenario(snapshot_to_scenario(live, conf_text=TEST_CONF, name="live")).cluster

    for cluster in (live, replay):
        job = cluster.jobs["default/g"]
        assert job.labels == {"volcano.sh/preemptable": "false"}
        assert job.quota_min_resources is not None
        assert job.quota_min_resources.get("requests.cpu") == 1000
        assert job.quota_min_resources.get("count/pods") == 1000
        assert job.min_resources is not None
        assert "requests.cpu" not in job.min_resources.names()
        (task,) = job.tasks.values()
        assert task.scheduled_at == dt.datetime(2026, 1, 1, 11, 59, tzinfo=dt.UTC)
        budgets = {pdb.name: pdb for pdb in cluster.pdbs}
        assert budgets["g"].selects("default", {"app": "g"})
        assert not budgets["g"].selects("default", {"app": "other"})
        assert budgets["g"].disruptions_allowed == 1
        assert budgets["g"].disrupted_pods == {"g-task-9"}
        assert budgets["none"].selector is None  # no spec.selector: selects no pod
        (quota,) = cluster.quotas_of("default")
        assert (quota.hard.get("requests.cpu"), quota.used.get("requests.cpu")) == (4000, 1000)


def test_pods_without_a_cooldown_are_given_no_scheduled_time() -> None:
    """The snapshot decodes conditions only for cdp's pods (it reads 50,000 pods a session)."""
    node = make_node("n1")
    _, (pod,) = make_gang("g", replicas=1, phase="Running")
    Pod.objects.filter(pk=pod.pk).update(
        node=node, phase="Running",
        conditions=[{"type": "PodScheduled", "status": "True",
                     "lastTransitionTime": "2026-01-01T11:59:00Z"}],
    )  # fmt: skip

    (task,) = read_snapshot(now=START).cluster.jobs["default/g"].tasks.values()

    assert task.scheduled_at is None
