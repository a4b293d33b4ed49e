"""gangpreempt/gangreclaim: arguments, bundles and the UnifiedEvictable tiers.

The end-to-end cases are scenario files (tests/scenarios/gangpreempt, gangreclaim, translated
from Volcano's gangpreempt_test.go and gangreclaim_test.go); these cover what a scenario cannot
show: the parsed arguments, the safe/whole split per role, the bundle order, the tier rules.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from apis.errors import ConfError
from scheduler.engine.actions.gang_eviction import (
    Bundle,
    BundleType,
    GangEvictionOptions,
    bundle_roi,
    create_job_bundles,
    gang_evictable_job,
)
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.eviction import EvictionKind, GangEvictionContext
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import ABSTAIN, PERMIT, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Session, open_session, run_session
from scheduler.engine.framework.decisions import Decisions
from scheduler.engine.util.scenario import load_scenario
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, gang, res


def _conf(arguments: str = "", tiers: str = "- plugins:\n  - name: gang\n") -> str:
    text = f'actions: "gangpreempt, gangreclaim"\ntiers:\n{tiers}'
    if arguments:
        text += f"configurations:\n- name: gangpreempt\n  arguments:\n{arguments}"
    return text


def _options(arguments: str) -> GangEvictionOptions:
    ssn = open_session(build_cluster([build_node("n1")], []), load_conf(_conf(arguments)))
    return GangEvictionOptions.of(ssn, "gangpreempt")


def test_arguments_are_read_from_configurations() -> None:
    options = _options("    maxDomains: 3\n    allowWholeBundle: false\n")
    assert options == GangEvictionOptions(max_domains=3, allow_whole_bundle=False)


def test_defaults_without_configurations() -> None:
    assert _options("") == GangEvictionOptions(max_domains=8, allow_whole_bundle=True)


@pytest.mark.parametrize("value", [0, -1])
def test_max_domains_not_positive_falls_back_to_8(value: int) -> None:
    assert _options(f"    maxDomains: {value}\n").max_domains == 8


def test_malformed_argument_is_refused_naming_it() -> None:
    with pytest.raises(ConfError) as info:
        load_conf(_conf("    allowWholeBundle: sometimes\n"))
    assert "allowWholeBundle" in str(info.value)


@pytest.mark.parametrize(
    ("where", "value", "allowed"),
    [
        (None, None, True),
        ("annotations", "true", True),
        ("annotations", "false", False),
        ("annotations", "T", True),
        ("annotations", "0", False),
        ("annotations", "yes", False),
        ("labels", "true", True),
        ("labels", "false", False),
    ],
)
def test_podgroup_preemptable_key(where: str | None, value: str | None, allowed: bool) -> None:
    job = gang("victim", 1)
    if where is not None and value is not None:
        getattr(job, where)["volcano.sh/preemptable"] = value
    assert gang_evictable_job(job) is allowed


def test_annotation_is_read_before_label() -> None:
    job = gang("victim", 1)
    job.annotations["volcano.sh/preemptable"] = "false"
    job.labels["volcano.sh/preemptable"] = "true"
    assert not gang_evictable_job(job)


def _running(name: str, role: str = "", priority: int = 1) -> TaskInfo:
    return build_pod(name, status=TaskStatus.RUNNING, node="n1", role=role, priority=priority)


def test_job_below_min_member_is_all_safe() -> None:
    pods = [_running("v-task-0"), build_pod("v-task-1")]
    job = build_pod_group("v", pods, min_member=2)
    (bundle,) = create_job_bundles(job, [pods[0]])
    assert bundle.type is BundleType.SAFE
    assert [t.name for t in bundle.tasks] == ["v-task-0"]
    assert bundle.total.is_empty()


def test_safe_pods_keep_min_member_lowest_task_priority_first() -> None:
    pods = [_running(f"v-task-{i}", priority=p) for i, p in enumerate([5, 1, 5])]
    job = build_pod_group("v", pods, min_member=2)
    safe, whole = create_job_bundles(job, list(pods))
    assert [t.name for t in safe.tasks] == ["v-task-1"]
    assert [t.name for t in whole.tasks] == ["v-task-0", "v-task-2"]
    assert whole.total == res(cpu="3", memory="3Gi", pods=3)


def test_role_at_its_min_task_member_is_whole() -> None:
    pods = [
        _running("v-ps-0", role="ps"),
        _running("v-worker-0", role="worker"),
        _running("v-worker-1", role="worker"),
        _running("v-worker-2", role="worker"),
    ]
    job = build_pod_group("v", pods, min_member=3, task_min={"ps": 1, "worker": 2})
    safe, whole = create_job_bundles(job, list(pods))
    # One pod to spare for the job; ps has none to spare, worker one.
    assert [t.name for t in safe.tasks] == ["v-worker-0"]
    assert [t.name for t in whole.tasks] == ["v-ps-0", "v-worker-1", "v-worker-2"]


def test_roles_ignored_when_min_member_is_below_their_sum() -> None:
    pods = [_running("v-ps-0", role="ps"), _running("v-worker-0", role="worker")]
    job = build_pod_group("v", pods, min_member=1, task_min={"ps": 1, "worker": 1})
    safe, whole = create_job_bundles(job, list(pods))
    assert [t.name for t in safe.tasks] == ["v-ps-0"]
    assert [t.name for t in whole.tasks] == ["v-worker-0"]


def test_bundle_roi() -> None:
    job = gang("v", 2)
    need = res(cpu="2", pods=1)
    safe = Bundle(BundleType.SAFE, job, [], res(cpu="1"))
    assert math.isinf(bundle_roi(safe, need))
    # local: min(4, 2)/2 + 0/1 = 1; total: 8/2 + 4/1 = 8.
    whole = Bundle(BundleType.WHOLE, job, [], res(cpu="4"), res(cpu="8", pods=4))
    assert bundle_roi(whole, need) == pytest.approx(1 / 8)


def _session_with_hooks(tiers: str) -> Session:
    cluster = build_cluster([build_node("n1")], [gang("j", 1)])
    return open_session(cluster, load_conf(_conf(tiers=tiers)))


def test_unified_evictable_intersects_within_a_tier_and_ignores_abstain() -> None:
    ssn = _session_with_hooks("- plugins:\n  - name: gang\n  - name: priority\n  - name: drf\n")
    a, b, c = (build_pod(n) for n in ("a", "b", "c"))
    ssn.add_unified_evictable_fn("gang", lambda _ctx, cands: (cands[:2], PERMIT))
    ssn.add_unified_evictable_fn("priority", lambda _ctx, cands: (cands[1:], PERMIT))
    ssn.add_unified_evictable_fn("drf", lambda _ctx, cands: ([], ABSTAIN))
    ctx = GangEvictionContext(EvictionKind.GANG_PREEMPT, ssn.jobs["ns/j"], "d1")
    assert [t.name for t in ssn.unified_evictable(ctx, [a, b, c])] == ["b"]


def test_a_tier_allowing_none_passes_to_the_next_tier() -> None:
    ssn = _session_with_hooks("- plugins:\n  - name: gang\n- plugins:\n  - name: priority\n")
    a, b = build_pod("a"), build_pod("b")
    ssn.add_unified_evictable_fn("gang", lambda _ctx, cands: ([], PERMIT))
    ssn.add_unified_evictable_fn("priority", lambda _ctx, cands: (cands[:1], PERMIT))
    ctx = GangEvictionContext(EvictionKind.GANG_RECLAIM, ssn.jobs["ns/j"], "d1")
    assert [t.name for t in ssn.unified_evictable(ctx, [a, b])] == ["a"]


def test_no_hook_no_victims() -> None:
    ssn = _session_with_hooks("- plugins:\n  - name: drf\n")
    ctx = GangEvictionContext(EvictionKind.GANG_PREEMPT, ssn.jobs["ns/j"], "d1")
    assert ssn.unified_evictable(ctx, [build_pod("a")]) == []


SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _run(path: str) -> tuple[ClusterInfo, Decisions]:
    scenario = load_scenario((SCENARIOS / path).read_text())
    return scenario.cluster, run_session(scenario.cluster, scenario.conf)


def test_evictions_name_the_action() -> None:
    _, decisions = _run("gangpreempt/whole-bundle-evicted-by-default.yaml")
    assert [(e.task, e.reason) for e in decisions.evictions] == [
        ("ns/victim-task-0", "gangpreempt")
    ]
    _, decisions = _run("gangreclaim/reclaimable-cross-queue-only.yaml")
    assert [(e.task, e.reason) for e in decisions.evictions] == [
        ("ns/victim-task-0", "gangreclaim")
    ]


def test_a_plan_that_cannot_pipeline_the_job_leaves_nothing_behind() -> None:
    cluster, decisions = _run("gangpreempt/gang-needs-every-pending-pod-placed.yaml")
    assert decisions.evictions == []
    assert decisions.pipelined == {}
    statuses = {uid: t.status for job in cluster.jobs.values() for uid, t in job.tasks.items()}
    assert statuses["ns/victim-task-0"] == TaskStatus.RUNNING
    assert statuses["ns/preemptor-task-0"] == TaskStatus.PENDING
    assert cluster.nodes["n1"].releasing.is_empty()
    assert cluster.nodes["n1"].pipelined.is_empty()
