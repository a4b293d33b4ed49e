"""The rescheduling plugin live: measured usage from the cache, victims evicted by shuffle."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from core.models import Pod, PodPhase
from scheduler import worker
from scheduler.engine.framework.memory import PluginMemory
from scheduler.metrics import load_state
from scheduler.worker import run_once
from tests.scheduler.factories import make_gang, make_node, use_conf

pytestmark = pytest.mark.django_db

CONF = """\
actions: "enqueue, allocate, backfill, shuffle"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
  - name: rescheduling
    arguments:
      interval: 0s
      metricsPeriod: 10m
      strategies:
      - name: lowNodeUtilization
        params:
          thresholds: {cpu: 20, memory: 20}
          targetThresholds: {cpu: 50, memory: 50}
- plugins:
  - name: predicates
  - name: proportion
  - name: nodeorder
"""


def test_a_node_used_over_target_sheds_pods_while_the_idle_node_has_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(worker, "_PLUGIN_MEMORY", PluginMemory())  # a scheduler just started
    use_conf(CONF)
    hot, _cool = make_node("hot", cpu=4), make_node("cool", cpu=4)
    # Three 1-cpu pods each using two cores: hot is measured at 150% cpu, cool at 0%.
    _, pods = make_gang("busy", replicas=3, phase="Running",
                        annotations={"volcano.sh/sim-usage": "cpu=200%"})  # fmt: skip
    now = timezone.now()
    for pod in pods:
        pod.node, pod.phase, pod.start_time, pod.running_since = hot, PodPhase.RUNNING, now, now
        pod.save()

    # (the metrics state outlives a test: earlier tests' preemptions may have counted already)
    before = load_state().data["c"].get("volcano_eviction_transactions_total")
    summary = run_once(reconcile=False, now=now + dt.timedelta(seconds=1))

    # Each victim frees 25% of hot's cpu; cool's room (50% of 4 cores) is exactly used after
    # two, which stops the eviction though hot still reads 100%.
    assert summary.record is not None
    assert summary.record.evictions == 2
    evicted = Pod.objects.filter(name__startswith="busy-", deletion_time__isnull=False)
    assert evicted.count() == 2
    # Volcano counts no eviction transaction for shuffle.
    assert load_state().data["c"].get("volcano_eviction_transactions_total") == before
