"""DRF plugin: the smaller dominant share goes first; hierarchical queues by share / weight."""

from __future__ import annotations

import pytest

from apis.errors import ConfError
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Session, open_session, run_session
from scheduler.engine.plugins.drf import DrfPlugin, JobAttr
from tests.engine.builders import (
    T0,
    build_cluster,
    build_node,
    build_pod,
    build_pod_group,
    conf,
    gang,
)

HIERARCHY_CONF = """\
actions: "allocate, reclaim"
tiers:
- plugins:
  - name: drf
    enableHierarchy: true
  - name: predicates
"""


def drf_jobs(ssn: Session) -> dict[str, JobAttr]:
    plugin = ssn.plugins["drf"]
    assert isinstance(plugin, DrfPlugin)
    return plugin.jobs


def running_job(
    name: str, n: int, *, node: str = "n1", queue: str = "default", **pod: str
) -> JobInfo:
    pods = [
        build_pod(f"{name}-task-{i}", status=TaskStatus.RUNNING, node=node, **pod)  # type: ignore[arg-type]
        for i in range(n)
    ]
    return build_pod_group(name, pods, queue=queue, phase=PodGroupPhase.RUNNING)


def hq(name: str, path: str, weights: str) -> QueueInfo:
    return QueueInfo(
        name=name,
        creation_timestamp=T0,
        annotations={"volcano.sh/hierarchy": path, "volcano.sh/hierarchy-weights": weights},
    )


def test_share_is_the_largest_fraction_of_any_resource():
    memhog = running_job("memhog", 1, cpu="1", memory="6Gi")
    cluster = build_cluster([build_node("n1", cpu="10", memory="10Gi")], [memhog])
    ssn = open_session(cluster, conf("allocate", ("drf",)))
    assert drf_jobs(ssn)[memhog.uid].share == pytest.approx(0.6)


def test_job_with_smaller_share_goes_first_even_when_younger():
    busy = running_job("busy", 2)
    busy.add_task(build_pod("busy-task-9"))
    idle = gang("idle", 1, minutes=5)
    cluster = build_cluster([build_node("n1", cpu="4")], [busy, idle])
    ssn = open_session(cluster, conf("allocate", ("drf",)))
    assert ssn.job_order_fn(idle, busy)
    assert not ssn.job_order_fn(busy, idle)


def test_share_follows_allocate_and_discard():
    job = gang("j", 2)
    cluster = build_cluster([build_node("n1", cpu="4", memory="64Gi")], [job])
    ssn = open_session(cluster, conf("allocate", ("drf",)))
    attr = drf_jobs(ssn)[job.uid]
    stmt = ssn.statement()
    stmt.allocate(next(iter(job.tasks.values())), ssn.nodes["n1"])
    assert attr.share == pytest.approx(0.25)
    stmt.discard()
    assert attr.share == 0


def test_preemptable_keeps_victim_jobs_at_or_above_the_preemptor_share():
    hog = running_job("hog", 4)
    late = gang("late", 1, minutes=1)
    cluster = build_cluster([build_node("n1", cpu="4", memory="64Gi")], [hog, late])
    ssn = open_session(cluster, conf("preempt", ("drf",)))
    preemptor = next(iter(late.tasks.values()))
    victims = ssn.preemptable(preemptor, list(hog.tasks.values()))
    # 4 -> 3 -> 2 -> 1 cpu left for hog; at 1 cpu it ties the preemptor's 1 cpu (counts), not below.
    assert [v.name for v in victims] == ["hog-task-0", "hog-task-1", "hog-task-2"]


def test_preemptable_refuses_victims_of_a_smaller_job():
    small = running_job("small", 1)
    big = build_pod_group("big", [build_pod("big-task-0", cpu="3")], minutes=1)
    cluster = build_cluster([build_node("n1", cpu="4", memory="64Gi")], [small, big])
    ssn = open_session(cluster, conf("preempt", ("drf",)))
    preemptor = next(iter(big.tasks.values()))
    assert ssn.preemptable(preemptor, list(small.tasks.values())) == []


def test_hierarchy_with_proportion_in_the_same_tier_is_refused():
    text = """\
actions: "allocate"
tiers:
- plugins:
  - name: drf
    enableHierarchy: true
  - name: proportion
"""
    with pytest.raises(ConfError, match="proportion and drf with hierarchy enabled conflicts"):
        load_conf(text)


def test_hierarchy_in_another_tier_than_proportion_is_accepted():
    text = HIERARCHY_CONF + "- plugins:\n  - name: proportion\n"
    assert [o.name for o in load_conf(text).plugin_options()][-1] == "proportion"


def test_hierarchy_serves_the_heavier_branch_first_at_equal_usage():
    sci = running_job("sci", 1, queue="sci")
    sci.add_task(build_pod("sci-task-9"))
    eng = running_job("eng", 1, queue="eng")
    eng.add_task(build_pod("eng-task-9"))
    queues = [hq("eng", "root/eng", "1/3"), hq("sci", "root/sci", "1/1")]
    cluster = build_cluster([build_node("n1", cpu="3", memory="64Gi")], [sci, eng], queues)
    decisions = run_session(cluster, load_conf(HIERARCHY_CONF))
    assert decisions.binds == {"ns/eng-task-9": "n1"}


def test_hierarchy_saturated_queue_goes_after_a_demanding_one():
    full = running_job("full", 2, queue="a")  # asked for 2, holds 2: saturated
    hungry = running_job("hungry", 1, queue="b")
    hungry.add_task(build_pod("hungry-task-9"))
    queues = [hq("a", "root/a", "1/1"), hq("b", "root/b", "1/1")]
    cluster = build_cluster([build_node("n1", cpu="8", memory="64Gi")], [full, hungry], queues)
    ssn = open_session(cluster, load_conf(HIERARCHY_CONF))
    assert ssn.queue_order_fn(ssn.queues["b"], ssn.queues["a"])


def test_hierarchy_reclaims_only_while_the_reclaimer_queue_stays_behind():
    owner = running_job("owner", 4, queue="a")
    hungry = build_pod_group("hungry", [build_pod("hungry-task-0")], queue="b", minutes=1)
    queues = [hq("a", "root/a", "1/1"), hq("b", "root/b", "1/1")]
    cluster = build_cluster([build_node("n1", cpu="4", memory="64Gi")], [owner, hungry], queues)
    ssn = open_session(cluster, load_conf(HIERARCHY_CONF))
    reclaimer = next(iter(hungry.tasks.values()))
    victims = ssn.reclaimable(reclaimer, list(owner.tasks.values()))
    assert len(victims) == 4  # each alone: b (1 cpu) would still be behind a (3 cpu)
    ssn2 = open_session(
        build_cluster(
            [build_node("n1", cpu="4", memory="64Gi")],
            [running_job("owner", 1, queue="a"), gang("hungry", 3, queue="b")],
            queues,
        ),
        load_conf(HIERARCHY_CONF),
    )
    hungry2 = ssn2.jobs["ns/hungry"]
    for task in list(hungry2.tasks.values())[:2]:
        ssn2.statement().allocate(task, ssn2.nodes["n1"])
    last = list(hungry2.tasks.values())[2]
    owner2 = ssn2.jobs["ns/owner"]
    assert ssn2.reclaimable(last, list(owner2.tasks.values())) == []
