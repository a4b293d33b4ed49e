"""tdm plugin: zone windows, budgets, the once-per-period victim hook (Volcano's tdm_test.go)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.types import PERMIT, REJECT, FitCode, PodGroupPhase, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Session, open_session
from scheduler.engine.framework.memory import PluginMemory
from scheduler.engine.plugins.tdm_zones import max_pod_evict_num, window, zone_closed_reason
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group

NOON = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [
        ("00:00-01:00", 3600),
        ("0:00-23:59", 23 * 3600 + 59 * 60),
        ("1:00-0:00", 23 * 3600),
        ("   1:00-0:00    ", 23 * 3600),
        ("23:59-23:59", 24 * 3600),
    ],
)
def test_window_lengths(raw: str, seconds: int) -> None:
    start, end = window(raw, NOON)

    assert start.date() == NOON.date()
    assert (end - start).total_seconds() == seconds


@pytest.mark.parametrize("raw", ["00:00_01:00", "0:00", "1:0-0:0", "63:59-23:59", "1:00 - 2:00"])
def test_unreadable_windows_are_errors_and_closed(raw: str) -> None:
    with pytest.raises(ValueError, match=r"revocable zone|parsing time"):
        window(raw, NOON)
    assert zone_closed_reason({"rz": raw}, "rz", NOON) is not None


def test_zone_open_at_both_ends_and_unknown_zones_closed() -> None:
    zones = {"rz": "10:00-12:00"}
    assert zone_closed_reason(zones, "rz", NOON) is None
    assert zone_closed_reason(zones, "rz", NOON + timedelta(microseconds=999_999)) is None
    assert zone_closed_reason(zones, "rz", NOON + timedelta(seconds=1)) == (
        "current time beyond revocable zone rz:10:00-12:00"
    )
    assert zone_closed_reason(zones, "other", NOON) == "revocable zone other not support"


def _job(running: int, pending: int = 0, done: int = 0, **annotations: str) -> JobInfo:
    pods = [build_pod(f"r-{i}", status=TaskStatus.RUNNING, node="n1") for i in range(running)]
    pods += [build_pod(f"p-{i}") for i in range(pending)]
    pods += [build_pod(f"d-{i}", status=TaskStatus.SUCCEEDED) for i in range(done)]
    job = build_pod_group("job", pods, phase=PodGroupPhase.RUNNING)
    job.annotations = {f"volcano.sh/{k.replace('_', '-')}": v for k, v in annotations.items()}
    return job


@pytest.mark.parametrize(
    ("job", "budget"),
    [
        (_job(5), 1),
        (_job(5, jdb_max_unavailable="30%"), 2),
        (_job(3, pending=2, jdb_max_unavailable="3"), 1),
        (_job(3, pending=2, jdb_max_unavailable="2"), 0),
        (_job(3, done=2, jdb_max_unavailable="1"), 1),
        (_job(5, jdb_min_available="3"), 2),
        (_job(5, jdb_min_available="30%"), 3),
        (_job(2, pending=3, jdb_min_available="3"), 1),
        (_job(5, jdb_min_available="4", jdb_max_unavailable="5"), 1),
        (_job(5, jdb_max_unavailable="lots"), 0),
        (_job(5, jdb_min_available=""), 1),
    ],
)
def test_eviction_budget(job: JobInfo, budget: int) -> None:
    assert max_pod_evict_num(job) == budget


_CONF = """
actions: "shuffle"
tiers:
- plugins:
  - name: tdm
    arguments:
      tdm.revocable-zone.rz1: 0:00-0:01
      tdm.evict.period: 10m
"""


def _session(now: datetime, memory: PluginMemory | None) -> Session:
    pods = [
        build_pod(f"spot-task-{i}", status=TaskStatus.RUNNING, node="n1", minutes=i)
        for i in range(3)
    ]
    job = build_pod_group("spot", pods, phase=PodGroupPhase.RUNNING)
    job.annotations = {"volcano.sh/jdb-max-unavailable": "100%"}
    nodes = [build_node("n1", labels={"volcano.sh/revocable-zone": "rz1"})]
    return open_session(build_cluster(nodes, [job], now=now), load_conf(_CONF), memory=memory)


def test_victims_are_looked_for_once_per_evict_period() -> None:
    memory = PluginMemory()

    assert len(_session(NOON, memory).victim_tasks([])) == 3  # the first session always looks
    assert _session(NOON + timedelta(minutes=5), memory).victim_tasks([]) == []
    assert len(_session(NOON + timedelta(minutes=10), memory).victim_tasks([])) == 3
    assert _session(NOON + timedelta(minutes=10), memory).victim_tasks([]) == []


def test_sessions_without_a_memory_always_look() -> None:
    assert len(_session(NOON, None).victim_tasks([])) == 3
    assert len(_session(NOON, None).victim_tasks([])) == 3


def test_predicate_reasons_and_votes() -> None:
    zones = _CONF.replace(
        "rz1: 0:00-0:01", "rz1: 0:00-0:00\n      tdm.revocable-zone.rz2: 1:00-2:00"
    )
    plain = build_pod("plain")
    spot = build_pod("spot")
    spot.annotations = {"volcano.sh/revocable-zone": "*"}
    nodes = [
        build_node("open", labels={"volcano.sh/revocable-zone": "rz1"}),
        build_node("closed", labels={"volcano.sh/revocable-zone": "rz2"}),
        build_node("ordinary"),
    ]
    jobs = [build_pod_group("a", [plain]), build_pod_group("b", [spot])]
    ssn = open_session(build_cluster(nodes, jobs, now=NOON), load_conf(zones))
    node = ssn.nodes

    refused = ssn.predicate_fn(plain, node["open"])
    assert refused is not None
    assert refused.reason == "not allow to dispatch to revocable node"
    assert refused.code == FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE
    closed = ssn.predicate_fn(spot, node["closed"])
    assert closed is not None
    assert closed.reason == "current time beyond revocable zone rz2:1:00-2:00"
    assert ssn.predicate_fn(spot, node["open"]) is None
    assert ssn.predicate_fn(plain, node["ordinary"]) is None
    assert ssn.node_order_fn(spot, node["open"]) == 100
    assert ssn.node_order_fn(plain, node["ordinary"]) == 0
    plugin = ssn.plugins["tdm"]
    assert plugin._job_pipelined(jobs[0]) == REJECT  # type: ignore[attr-defined]
    jobs[0].update_task_status(plain, TaskStatus.PIPELINED)
    assert plugin._job_pipelined(jobs[0]) == PERMIT  # type: ignore[attr-defined]
