"""nodegroup plugin: queue affinity to node groups, hierarchy, per-group limits (nodegroup_test.go)."""

from __future__ import annotations

import numpy as np
import pytest

from apis.errors import ConfError, ManifestError
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.queue_info import NodeGroupTerms, QueueAffinity, QueueInfo
from scheduler.engine.api.types import FitCode, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Session, open_session
from scheduler.engine.plugins.nodegroup import (
    AFFINITY_NOT_FOUND,
    LABEL_NOT_FOUND,
    NODE_UNSATISFIED,
    RESOURCE_LIMIT_EXCEEDED,
    RESOURCE_LIMIT_INVALID,
)
from scheduler.engine.util.manifests import read_queue_affinity
from tests.engine.builders import T0, build_cluster, build_node, build_pod, build_pod_group

OK = "ok"
NO = FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE
LABEL = "volcano.sh/nodegroup-name"
LIMITS = "volcano.sh/nodegroup-resource-limits"

FULL = QueueAffinity(
    NodeGroupTerms(required=("group1", "group3"), preferred=("group3",)),
    NodeGroupTerms(required=("group2", "group4"), preferred=("group4",)),
)
PARTIAL = QueueAffinity(
    NodeGroupTerms(required=("group1",), preferred=("group3",)),
    NodeGroupTerms(required=("group2",), preferred=("group4",)),
)
PREFERRED_ONLY = QueueAffinity(NodeGroupTerms(preferred=("group1", "group3")))


def _queue(
    name: str,
    affinity: QueueAffinity | None = None,
    parent: str = "",
    annotations: dict[str, str] | None = None,
) -> QueueInfo:
    return QueueInfo(
        name=name,
        parent=parent,
        affinity=affinity,
        annotations=annotations or {},
        creation_timestamp=T0,
    )


def _nodes() -> list[NodeInfo]:
    nodes = [build_node("n1", cpu="2", memory="4Gi", labels={LABEL: "group1"})]
    nodes += [
        build_node(f"n{i}", cpu="4", memory="16Gi", labels={LABEL: f"group{i}"}) for i in (2, 3, 4)
    ]
    return [*nodes, build_node("n5", cpu="4", memory="16Gi")]


def _session(queues: list[QueueInfo], queue: str, flags: str = "", args: str = "") -> Session:
    pod = build_pod("p", cpu="2", memory="4Gi")
    job = build_pod_group("pg", [pod], queue=queue)
    text = (
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: nodegroup\n'
        + (f"    {flags}\n" if flags else "")
        + (f"    arguments: {args}\n" if args else "")
    )
    return open_session(build_cluster(_nodes(), [job], queues), load_conf(text))


def _answers(ssn: Session) -> tuple[dict[str, float], dict[str, str]]:
    task = next(iter(next(iter(ssn.jobs.values())).tasks.values()))
    scores, codes = {}, {}
    for name, node in sorted(ssn.nodes.items()):
        scores[name] = ssn.node_order_fn(task, node)
        refused = ssn.predicate_fn(task, node)
        codes[name] = OK if refused is None else refused.code
    return scores, codes


@pytest.mark.parametrize(
    ("queues", "queue", "flags", "args", "scores", "codes"),
    [
        pytest.param(
            [_queue("q1", FULL, parent="root")], "q1", "", "",
            [100, 0, 150, -1, 0], [OK, NO, OK, OK, NO], id="preferred-within-required",
        ),
        pytest.param(
            [_queue("q2", PARTIAL, parent="root")], "q2", "", "",
            [100, 0, 50, -1, 0], [OK, NO, OK, OK, NO], id="preferred-outside-required",
        ),
        pytest.param(
            [_queue("root-no-affinity")], "root-no-affinity", "", "{strict: false}",
            [0, 0, 0, 0, 0], [NO, NO, NO, NO, OK], id="not-strict-unlabelled-only",
        ),
        pytest.param(
            [_queue("root", FULL), _queue("q1", FULL, parent="root"),
             _queue("q1-child", parent="q1")], "q1-child", "enableHierarchy: true", "",
            [100, 0, 150, -1, 0], [OK, NO, OK, OK, NO], id="inherits-from-parent",
        ),
        pytest.param(
            [_queue("root", FULL), _queue("q-none", parent="root"),
             _queue("q-none-child", parent="q-none")], "q-none-child",
            "enableHierarchy: true", "",
            [100, 0, 150, -1, 0], [OK, NO, OK, OK, NO], id="inherits-from-ancestor",
        ),
        pytest.param(
            [_queue("q-none", parent="root")], "q-none", "", "",
            [0, 0, 0, 0, 0], [NO, NO, NO, NO, NO], id="queue-without-affinity",
        ),
        pytest.param(
            [_queue("q3", PREFERRED_ONLY)], "q3", "", "{enablePreferredOrder: true}",
            [50, 0, 25, 0, 0], [OK, NO, OK, NO, NO], id="preferred-order",
        ),
        pytest.param(
            [_queue("root", FULL), _queue("q1-child", parent="root")], "q1-child", "", "",
            [0, 0, 0, 0, 0], [NO, NO, NO, NO, NO], id="no-inheritance-without-hierarchy",
        ),
        pytest.param(
            [_queue("root", FULL), _queue("q-empty", QueueAffinity(), parent="root")],
            "q-empty", "enableHierarchy: true", "",
            [0, 0, 0, 0, 0], [NO, NO, NO, NO, NO], id="empty-affinity-is-not-inherited",
        ),
    ],
)  # fmt: skip
def test_scores_and_filter_per_node(
    queues: list[QueueInfo],
    queue: str,
    flags: str,
    args: str,
    scores: list[float],
    codes: list[str],
) -> None:
    got_scores, got_codes = _answers(_session(queues, queue, flags, args))

    names = [f"n{i}" for i in range(1, 6)]
    assert got_scores == dict(zip(names, scores, strict=True))
    assert got_codes == dict(zip(names, codes, strict=True))


def test_refusal_reasons_are_volcanos() -> None:
    ssn = _session([_queue("q2", PARTIAL)], "q2")
    task = next(iter(ssn.jobs["ns/pg"].tasks.values()))
    reasons = {n: ssn.predicate_fn(task, node) for n, node in ssn.nodes.items()}

    assert reasons["n2"] is not None
    assert reasons["n2"].reason == NODE_UNSATISFIED
    assert reasons["n5"] is not None
    assert reasons["n5"].reason == LABEL_NOT_FOUND
    plain = _session([_queue("q")], "q")
    task = next(iter(plain.jobs["ns/pg"].tasks.values()))
    refused = plain.predicate_fn(task, plain.nodes["n1"])
    assert refused is not None
    assert refused.reason == AFFINITY_NOT_FOUND


TWO_GROUPS = QueueAffinity(NodeGroupTerms(required=("group1", "group2"), preferred=("group1",)))


def _limit_session(annotation: str | None, *, running: bool = False) -> Session:
    nodes = [
        build_node(n, cpu="16", memory="64Gi", pods=32, labels={LABEL: g})
        for n, g in (("n1", "group1"), ("n2", "group2"))
    ]
    jobs = [build_pod_group("pending", [build_pod("pending", cpu="2", memory="4Gi")], queue="q")]
    if running:
        used = build_pod("used", cpu="2", memory="4Gi", status=TaskStatus.RUNNING, node="n1")
        jobs.append(build_pod_group("used", [used], queue="q"))
    annotations = {} if annotation is None else {LIMITS: annotation}
    queue = _queue("q", TWO_GROUPS, annotations=annotations)
    conf = load_conf('actions: "allocate"\ntiers:\n- plugins:\n  - name: nodegroup\n')
    return open_session(build_cluster(nodes, jobs, [queue]), conf)


@pytest.mark.parametrize(
    ("annotation", "running", "n1", "n2"),
    [
        (None, False, OK, OK),
        ('{"group1":{"cpu":"3","memory":"8Gi"}}', False, OK, OK),
        ('{"group1":{"cpu":"3"}}', False, OK, OK),
        ('{"group1":{"cpu":"1"}}', False, RESOURCE_LIMIT_EXCEEDED, OK),
        ('{"group1":{"cpu":"3","memory":"8Gi"}}', True, RESOURCE_LIMIT_EXCEEDED, OK),
        ('{"group1":{"cpu":', False, RESOURCE_LIMIT_INVALID, RESOURCE_LIMIT_INVALID),
        ('{"group1":{"cpu":"lots"}}', False, RESOURCE_LIMIT_INVALID, RESOURCE_LIMIT_INVALID),
        ('{"group1":{"memory":8589934592}}', True, OK, OK),
    ],
)
def test_resource_limits(annotation: str | None, running: bool, n1: str, n2: str) -> None:
    ssn = _limit_session(annotation, running=running)
    task = ssn.jobs["ns/pending"].tasks["ns/pending"]

    def reason(node: str) -> str:
        refused = ssn.predicate_fn(task, ssn.nodes[node])
        return OK if refused is None else refused.reason

    assert (reason("n1"), reason("n2")) == (n1, n2)
    mask = ssn.predicate_mask(task, np.arange(len(ssn.node_list), dtype=np.int64))
    assert mask.tolist() == [n1 == OK, n2 == OK]


def test_allocation_in_session_counts_against_the_limit() -> None:
    node = build_node("n1", cpu="16", memory="64Gi", pods=32, labels={LABEL: "group1"})
    jobs = [build_pod_group(f"pg-{i}", [build_pod(f"p-{i}", cpu="2", memory="4Gi")], queue="q")
            for i in (1, 2)]  # fmt: skip
    affinity = QueueAffinity(NodeGroupTerms(required=("group1",)))
    queue = _queue("q", affinity, annotations={LIMITS: '{"group1":{"cpu":"3","memory":"8Gi"}}'})
    conf = load_conf('actions: "allocate"\ntiers:\n- plugins:\n  - name: nodegroup\n')
    ssn = open_session(build_cluster([node], jobs, [queue]), conf)
    first, second = (ssn.jobs[f"ns/pg-{i}"].tasks[f"ns/p-{i}"] for i in (1, 2))

    assert ssn.predicate_fn(first, ssn.nodes["n1"]) is None
    assert ssn.predicate_fn(second, ssn.nodes["n1"]) is None
    ssn.place_task(first, ssn.nodes["n1"], TaskStatus.ALLOCATED)
    refused = ssn.predicate_fn(second, ssn.nodes["n1"])
    assert refused is not None
    assert refused.reason == RESOURCE_LIMIT_EXCEEDED
    ssn.unplace_task(first)
    assert ssn.predicate_fn(second, ssn.nodes["n1"]) is None


def test_queue_affinity_is_read_from_the_manifest() -> None:
    affinity = read_queue_affinity(
        {
            "nodeGroupAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": ["b", "a"]},
            "nodeGroupAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": ["c"]},
        },
        "q.spec.affinity",
    )
    assert affinity == QueueAffinity(NodeGroupTerms(preferred=("b", "a")), NodeGroupTerms(("c",)))
    assert read_queue_affinity({}, "f") == QueueAffinity()
    assert read_queue_affinity(None, "f") is None
    with pytest.raises(ManifestError, match=r"q.spec.affinity.nodeGroupAffinity.required: unknown"):
        read_queue_affinity({"nodeGroupAffinity": {"required": ["a"]}}, "q.spec.affinity")
    with pytest.raises(
        ManifestError, match=r"preferredDuringSchedulingIgnoredDuringExecution\[0\]"
    ):
        read_queue_affinity(
            {"nodeGroupAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [1]}}, "f"
        )


def test_bad_arguments_name_the_field() -> None:
    with pytest.raises(ConfError, match=r"arguments.strict: expected true or false"):
        load_conf('actions: "allocate"\ntiers:\n- plugins:\n  - name: nodegroup\n'
                  '    arguments: {strict: "no"}\n')  # fmt: skip


def test_one_row_forms_answer_as_the_batch_forms() -> None:
    ssn = _limit_session('{"group1":{"cpu":"3"}}', running=True)
    plugin = ssn.plugins["nodegroup"]
    rows = np.arange(len(ssn.node_list), dtype=np.int64)
    task = ssn.jobs["ns/pending"].tasks["ns/pending"]

    mask = plugin._batch_predicate(task, rows).tolist()  # type: ignore[attr-defined]
    scores = plugin._batch_score(task, rows).tolist()  # type: ignore[attr-defined]
    assert mask == [False, True]
    assert scores == [150.0, 100.0]
    for row in rows.tolist():
        assert plugin._row_predicate(task, row) == mask[row]  # type: ignore[attr-defined]
        assert plugin._row_score(task, row) == scores[row]  # type: ignore[attr-defined]
