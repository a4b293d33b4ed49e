"""Eviction series by action: one transaction per committed statement that evicts.

Volcano's ``RegisterEvictionTransaction`` counts preempt, reclaim, gangpreempt and gangreclaim
and ignores any other action (shuffle); ``volcano_pod_preemption_victims`` and
``volcano_total_preemption_attempts`` are preempt's alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from scheduler.cache import ApplyResult, Snapshot
from scheduler.engine.framework.decisions import Decisions
from scheduler.engine.framework.session import run_session
from scheduler.engine.util.scenario import load_scenario
from scheduler.metrics import MetricsState
from scheduler.metrics_session import observe_session

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
TRANSACTIONS = "volcano_eviction_transactions_total"


def _observe(state: MetricsState, scenario: str, skipped: tuple[str, ...] = ()) -> Decisions:
    loaded = load_scenario((SCENARIOS / scenario).read_text())
    decisions = run_session(loaded.cluster, loaded.conf)
    snapshot = cast(Snapshot, SimpleNamespace(cluster=loaded.cluster, pods={}, read_seconds=0.0))
    observe_session(state, snapshot=snapshot, decisions=decisions,
                    applied=ApplyResult(skipped_evictions=list(skipped)), e2e_ms=1.0,
                    open_ms=1.0, now=loaded.cluster.now)  # fmt: skip
    return decisions


def _counter(state: MetricsState, name: str) -> dict[str, float]:
    series: dict[str, float] = state.data["c"].get(name, {})
    return {",".join(json.loads(k)): v for k, v in series.items()}


def _gauge(state: MetricsState, name: str) -> Any:
    return state.data["g"][name][json.dumps([])]


@pytest.mark.parametrize(
    ("scenario", "action", "pods"),
    [
        ("reclaim/gang-job-reclaims-all-or-nothing.yaml", "reclaim", 3),
        ("gangpreempt/bundles-accumulate-until-the-job-fits.yaml", "gangpreempt", 2),
        ("gangreclaim/capacity-takes-back-down-to-deserved.yaml", "gangreclaim", 2),
    ],
)
def test_a_transaction_counts_once_under_its_own_action(
    scenario: str, action: str, pods: int
) -> None:
    state = MetricsState()

    decisions = _observe(state, scenario)

    assert len(decisions.evictions) == pods  # several pods, one committed statement
    assert _counter(state, TRANSACTIONS) == {action: 1.0}
    assert _gauge(state, "volcano_pod_preemption_victims") == 0.0  # preempt's figure only
    assert _counter(state, "volcano_total_preemption_attempts") == {"": 0.0}


def test_preempt_counts_its_victims_attempts_and_transactions() -> None:
    state = MetricsState()

    _observe(state, "preempt/higher-priority-job-evicts-lower-in-same-queue.yaml")
    _observe(state, "preempt/victims-from-lowest-priority-job-first.yaml")

    assert _counter(state, TRANSACTIONS) == {"preempt": 2.0}
    assert _gauge(state, "volcano_pod_preemption_victims") == 1.0
    assert _counter(state, "volcano_total_preemption_attempts") == {"": 2.0}


def test_shuffle_evictions_are_not_eviction_transactions_nor_preemption() -> None:
    state = MetricsState()

    decisions = _observe(state, "rescheduling/busy-node-sheds-pods-lowest-priority-first.yaml")

    assert {e.action for e in decisions.evictions} == {"shuffle"}
    assert len(decisions.eviction_transactions) == 5  # one statement per pod shuffle evicts
    assert _counter(state, TRANSACTIONS) == {}
    assert _gauge(state, "volcano_pod_preemption_victims") == 0.0
    assert _counter(state, "volcano_total_preemption_attempts") == {"": 0.0}


def test_a_victim_the_writer_refused_is_no_preemption_victim() -> None:
    state = MetricsState()
    scenario = "preempt/higher-priority-job-evicts-lower-in-same-queue.yaml"
    loaded = load_scenario((SCENARIOS / scenario).read_text())
    (victim,) = run_session(loaded.cluster, loaded.conf).evictions

    _observe(state, scenario, skipped=(victim.task,))

    assert _gauge(state, "volcano_pod_preemption_victims") == 0.0
    assert _counter(state, TRANSACTIONS) == {"preempt": 1.0}  # Volcano counts at commit
