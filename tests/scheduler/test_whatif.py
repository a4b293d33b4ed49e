"""The what-if: the draft and the active conf on one snapshot; prediction equals outcome."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.models import Node, Pod, PriorityClass
from queues.models import PodGroup, Queue
from scheduler.cache import read_snapshot, snapshot_to_scenario
from scheduler.engine.simulate import run_files
from scheduler.services import scheduler_conf_activate, scheduler_conf_create
from scheduler.whatif import WhatIfError, run_what_if
from scheduler.worker import run_once
from tests.scheduler.factories import make_gang, make_node, make_queue, use_conf

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)

ACTIVE = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
  - name: nodeorder
"""
WITH_PREEMPT = ACTIVE.replace(
    '"enqueue, allocate, backfill"', '"enqueue, allocate, preempt, backfill"'
)


def full_cluster_with_a_waiting_high_priority_gang() -> None:
    """Two 2-CPU nodes full of low-priority pods; a 2-pod high-priority gang waits."""
    PriorityClass.objects.create(name="low", value=10)
    PriorityClass.objects.create(name="high", value=1000)
    nodes = [make_node("n1", cpu=2), make_node("n2", cpu=2)]
    low, pods = make_gang("low", replicas=4, min_member=1, phase="Running")
    PodGroup.objects.filter(pk=low.pk).update(priority_class_name="low")
    for i, pod in enumerate(pods):
        Pod.objects.filter(pk=pod.pk).update(
            node=nodes[i % 2], phase="Running", spec={**pod.spec, "priorityClassName": "low"}
        )
    high, high_pods = make_gang("high", replicas=2, phase="Inqueue")
    PodGroup.objects.filter(pk=high.pk).update(priority_class_name="high")
    for pod in high_pods:
        Pod.objects.filter(pk=pod.pk).update(spec={**pod.spec, "priorityClassName": "high"})


def test_a_draft_adding_preempt_predicts_the_evictions_the_next_session_performs() -> None:
    use_conf(ACTIVE)
    full_cluster_with_a_waiting_high_priority_gang()

    report = run_what_if(WITH_PREEMPT, now=NOW)

    assert report.active.evictions == []
    assert "default/high" in report.active.pending
    predicted = sorted((e.pod, e.action) for e in report.draft.evictions)
    assert len(predicted) == 2
    assert all(action == "preempt" for _pod, action in predicted)
    assert report.draft.pipelined  # the gang waits for the evicted pods' room
    assert report.draft.pending["default/high"].reason.startswith("Pipelined: ")

    draft = scheduler_conf_create(text=WITH_PREEMPT, comment="add preempt")
    scheduler_conf_activate(configuration=draft)
    outcome = run_once(now=NOW, reconcile=False)

    assert outcome.decisions is not None
    assert sorted((e.task, e.reason) for e in outcome.decisions.evictions) == predicted
    assert dict(outcome.decisions.pipelined) == report.draft.pipelined
    assert outcome.decisions.binds == report.draft.binds
    evicted = {p.split("/")[1] for p, _a in predicted}
    assert Pod.objects.filter(name__in=evicted, deletion_time__isnull=False).count() == 2


def test_the_active_side_equals_a_session_under_the_active_conf() -> None:
    use_conf(ACTIVE)
    make_node("n1", cpu=4)
    make_gang("g", replicas=3)

    report = run_what_if(None, now=NOW)
    outcome = run_once(now=NOW, reconcile=False)

    assert outcome.decisions is not None
    assert report.active.binds == outcome.decisions.binds == report.draft.binds
    assert len(report.active.binds) == 3


def test_a_job_that_fits_nowhere_is_pending_with_the_job_consoles_reason() -> None:
    use_conf(ACTIVE)
    make_node("n1", cpu=2)
    make_gang("big", replicas=3, phase="Inqueue")

    report = run_what_if(None, now=NOW)

    pending = report.draft.pending["default/big"]
    assert pending.pending == 3
    assert pending.reason.startswith("Gang not satisfied")
    assert report.draft.line == {"default/big": 1}


def test_a_queue_weight_change_moves_the_deserved_share_on_the_draft_side_only() -> None:
    use_conf(ACTIVE.replace("  - name: nodeorder\n", "  - name: nodeorder\n  - name: proportion\n"))
    make_node("n1", cpu=8)
    make_queue("a", weight=1)
    make_queue("b", weight=1)
    make_gang("ga", replicas=8, min_member=1, queue="a", phase="Inqueue")
    make_gang("gb", replicas=8, min_member=1, queue="b", phase="Inqueue")

    report = run_what_if(None, queue_changes={"a": {"weight": 3}}, now=NOW)

    assert report.active.queues["a"].deserved["cpu"] == report.active.queues["b"].deserved["cpu"]
    assert report.draft.queues["a"].deserved["cpu"] == 3 * report.draft.queues["b"].deserved["cpu"]
    assert report.draft.queues["a"].weight == 3
    assert Queue.objects.get(name="a").weight == 1  # nothing written
    binds_a = sum(1 for p in report.draft.binds if p.startswith("default/ga-"))
    assert binds_a == 6


def test_a_queue_capability_change_caps_what_the_queue_is_given() -> None:
    use_conf(ACTIVE.replace("  - name: nodeorder\n", "  - name: nodeorder\n  - name: proportion\n"))
    make_node("n1", cpu=8)
    make_queue("a")
    make_gang("ga", replicas=6, min_member=1, queue="a", phase="Inqueue")

    report = run_what_if(None, queue_changes={"a": {"capability": {"cpu": "2"}}}, now=NOW)

    assert len(report.active.binds) == 6
    assert len(report.draft.binds) == 2
    assert report.draft.pending["default/ga"].pending == 4


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"nope": {"weight": 2}}, "queues.nope"),
        ({"a": {"weight": -1}}, "queues.a.weight"),
        ({"a": {"colour": "red"}}, "queues.a.colour"),
        ({"a": {"capability": {"cpu": "lots"}}}, "queues.a.capability.cpu"),
    ],
)
def test_a_bad_queue_change_names_its_field(changes: dict[str, Any], field: str) -> None:
    make_queue("a")

    with pytest.raises(WhatIfError) as refused:
        run_what_if(None, queue_changes=changes, now=NOW)

    assert refused.value.field == field


def test_a_draft_the_parser_refuses_names_its_field() -> None:
    with pytest.raises(WhatIfError) as refused:
        run_what_if("actions: allocate\ntiers:\n- plugins:\n  - name: nosuch\n", now=NOW)

    assert refused.value.field == "draft.tiers[0].plugins[0].name"


def test_the_downloaded_scenario_replays_to_the_same_decisions(tmp_path: Path) -> None:
    use_conf(ACTIVE)
    full_cluster_with_a_waiting_high_priority_gang()
    report = run_what_if(WITH_PREEMPT, now=NOW)
    path = tmp_path / "what-if.yaml"
    path.write_text(report.scenario("draft"), encoding="utf-8")

    results, errors = run_files([str(path)])

    assert errors == []
    replayed = results[0].decisions
    assert replayed.binds == report.draft.binds
    assert [(e.task, e.reason) for e in replayed.evictions] == [
        (e.pod, e.action) for e in report.draft.evictions
    ]
    assert replayed.pipelined == report.draft.pipelined
    assert Node.objects.count() == 2


def test_the_scenario_is_the_snapshot_as_read_before_either_session() -> None:
    use_conf(ACTIVE)
    full_cluster_with_a_waiting_high_priority_gang()
    make_node("n3", cpu=2)
    make_gang("fits", replicas=2)
    report = run_what_if(WITH_PREEMPT, now=NOW)
    assert len(report.active.binds) == 2  # the active side changed its copy; it is put back

    fresh = snapshot_to_scenario(
        read_snapshot(now=NOW).cluster, conf_text=ACTIVE, name="what-if-active", description="x"
    )

    exported = yaml.safe_load(report.scenario("active"))
    assert exported["objects"] == yaml.safe_load(fresh)["objects"]
    assert exported["config"] == ACTIVE


def test_a_what_if_then_activate_predicts_the_next_live_session_with_nominated_pods() -> None:
    """Issue 16: the prediction equals the next session, also once pods are nominated.

    A first preempting session pipelines the high-priority gang (its pods nominated to the
    freed node, victims terminating); a what-if of a draft is then taken and the draft is
    activated: the next session makes exactly the predicted evictions, pipelines and binds,
    and evicts nothing again for the nominated gang.
    """
    use_conf(WITH_PREEMPT)
    full_cluster_with_a_waiting_high_priority_gang()
    first = run_once(now=NOW, reconcile=False)
    assert first.decisions is not None
    assert len(first.decisions.evictions) == 2
    nominated = dict(Pod.objects.filter(name__startswith="high-")
                     .values_list("name", "nominated_node_name"))  # fmt: skip
    assert all(nominated.values())
    later = NOW + dt.timedelta(seconds=1)

    report = run_what_if(WITH_PREEMPT.replace("backfill", "backfill\n"), now=later)
    draft = scheduler_conf_create(text=report.draft.conf_text, comment="same, re-read")
    scheduler_conf_activate(configuration=draft)
    outcome = run_once(now=later, reconcile=False)

    assert outcome.decisions is not None
    assert [(e.task, e.node, e.reason, e.preemptor) for e in outcome.decisions.evictions] == [
        (e.pod, e.node, e.action, e.preemptor) for e in report.draft.evictions
    ]
    assert report.draft.evictions == []  # the gang waits on its nominated node
    assert dict(outcome.decisions.pipelined) == report.draft.pipelined
    assert report.draft.pipelined == {f"default/{n}": node for n, node in nominated.items()}
    assert outcome.decisions.binds == report.draft.binds


def test_a_job_a_resource_quota_holds_is_pending_naming_the_quota() -> None:
    """The resourcequota plugin's refusal (a PodGroup event of the session) is the what-if's
    reason for the job, in the job console's words."""
    from scheduler.engine.api.quota_info import QuotaInfo
    from scheduler.engine.api.resource import Resource
    from scheduler.engine.api.types import PodGroupPhase
    from scheduler.engine.conf import load_conf
    from scheduler.engine.framework.session import run_session
    from scheduler.whatif import _pending_jobs
    from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group

    big = build_pod_group("big", [build_pod("big-0", namespace="team-a", cpu="2")],
                          namespace="team-a", phase=PodGroupPhase.PENDING,
                          min_resources=Resource({"cpu": 2000, "requests.cpu": 2000}))  # fmt: skip
    cluster = build_cluster([build_node("n1", cpu="8")], [big])
    cluster.resource_quotas = {"team-a": [QuotaInfo(
        "compute", "team-a", hard=Resource({"requests.cpu": 1000}), used=Resource())]}  # fmt: skip
    conf = load_conf('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: resourcequota\n')
    decisions = run_session(cluster, conf, uid="quota")

    pending = _pending_jobs(cluster, decisions, {}, {"cpu": 8000})["team-a/big"]
    assert pending.reason.startswith("Held at enqueue by ResourceQuota team-a/compute")
