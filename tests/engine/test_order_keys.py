"""Sort keys for job and queue order, and the label-free template key: same order, same answers.

The speed paths (``Session.job_order_key``, ``queue_order_key``, templates keyed without labels)
must give exactly what the comparator chain and the per-label cache gave.
"""

from __future__ import annotations

from functools import cmp_to_key
from itertools import pairwise
from typing import Any

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.task_info import TaskTemplate
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import open_session
from tests.engine.builders import (
    build_cluster,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    gang,
)

DEFAULT = load_conf(
    'actions: "enqueue, allocate, backfill"\n'
    "tiers:\n- plugins:\n  - name: priority\n  - name: gang\n  - name: conformance\n"
    "- plugins:\n  - name: drf\n  - name: predicates\n  - name: proportion\n"
)


def _mixed_jobs() -> list[JobInfo]:
    """Jobs that differ in priority, drf share, gang readiness and creation time."""
    running = [build_pod("r-0", status=TaskStatus.RUNNING, node="n1", cpu="2")]
    return [
        gang("a", 2, priority=5, minutes=3),
        gang("b", 2, priority=5, minutes=1),
        gang("c", 1, priority=9, minutes=2),
        build_pod_group("d", [*running, build_pod("d-p-1")], priority=5, minutes=0),
        gang("e", 3, priority=0, minutes=1, queue="q2"),
        gang("f", 1, priority=5, minutes=1),
        # Not gang-ready (1 of 2) but holding resources: drf puts it after the empty jobs.
        build_pod_group(
            "g",
            [build_pod("g-r-0", status=TaskStatus.RUNNING, node="n2"), build_pod("g-p-1")],
            min_member=2,
            priority=5,
            minutes=0,
        ),
    ]


def test_job_key_sorts_jobs_as_the_comparator_chain_does() -> None:
    cluster = build_cluster(
        [build_node("n1", cpu="8"), build_node("n2")], _mixed_jobs(), [build_queue("q2")]
    )
    ssn = open_session(cluster, DEFAULT)
    key = ssn.job_order_key()
    assert key is not None
    jobs = list(ssn.jobs.values())
    by_key = sorted(jobs, key=key)
    assert [j.uid for j in by_key] == [
        j.uid for j in sorted(jobs, key=cmp_to_key(ssn.job_order_cmp))
    ]
    assert [j.name for j in by_key] == ["c", "b", "f", "a", "g", "d", "e"]
    # Strict: neighbours never compare equal, so the heap's insertion counter never decides.
    assert all(key(x) < key(y) for x, y in pairwise(by_key))


def test_no_job_key_when_a_job_order_plugin_has_none() -> None:
    with_sla = load_conf(
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: sla\n'
    )
    ssn = open_session(build_cluster([build_node("n1")], _mixed_jobs()), with_sla)
    assert ssn.job_order_key() is None


def test_no_job_key_when_only_some_jobs_have_a_creation_time() -> None:
    jobs = _mixed_jobs()
    jobs[0].creation_timestamp = None
    ssn = open_session(build_cluster([build_node("n1")], jobs, [build_queue("q2")]), DEFAULT)
    assert ssn.job_order_key() is None


def test_queue_key_sorts_queues_as_the_comparator_chain_does() -> None:
    queues = [build_queue("q2"), build_queue("q3", weight=3), build_queue("q4")]
    queues[2].priority = 7
    jobs = [
        gang("x", 2, queue="q2"),
        gang("y", 1, queue="q3"),
        gang("z", 1, queue="q4"),
        build_pod_group(
            "w", [build_pod("w-0", status=TaskStatus.RUNNING, node="n1", cpu="3")], queue="q2"
        ),
    ]
    ssn = open_session(build_cluster([build_node("n1", cpu="8")], jobs, queues), DEFAULT)
    key = ssn.queue_order_key()
    assert key is not None
    holding = [ssn.queues[n] for n in ("q2", "q3", "q4")]
    assert [q.name for q in sorted(holding, key=key)] == [
        q.name for q in sorted(holding, key=cmp_to_key(ssn.queue_order_cmp))
    ]
    assert sorted(holding, key=key)[0].name == "q4"  # highest queue priority first


def _labelled(job: str, labels: dict[str, str], affinity: dict[str, Any]) -> JobInfo:
    pod = build_pod(f"{job}-t-0")
    pod.template = TaskTemplate(namespace="ns", labels=labels, affinity=affinity)
    return build_pod_group(job, [pod])


def test_template_key_leaves_labels_out_only_without_inter_pod_rules() -> None:
    plain = build_cluster(
        [build_node("n1")], [_labelled("a", {"app": "a"}, {}), _labelled("b", {"app": "b"}, {})]
    )
    keys = {t.template_key for j in plain.jobs.values() for t in j.tasks.values()}
    assert len(keys) == 1  # two jobs of one shape share node answers
    anti = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"app": "a"}},
                    "topologyKey": "kubernetes.io/hostname",
                }
            ]
        }
    }
    related = build_cluster(
        [build_node("n1")],
        [_labelled("a", {"app": "a"}, anti), _labelled("b", {"app": "b"}, {})],
    )
    keys = {t.template_key for j in related.jobs.values() for t in j.tasks.values()}
    assert len(keys) == 2  # labels matter once a pod has inter-pod rules
