"""pdb plugin: one filter for preempt, reclaim and the victim hook (Volcano's pdb_test.go)."""

from __future__ import annotations

import pytest

from apis.errors import ManifestError
from scheduler.engine.api.pdb_info import PdbInfo, PdbSelector
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import Session, open_session
from scheduler.engine.util.scenario import load_scenario
from tests.engine.builders import T0, build_node, build_pod, build_pod_group, conf, gang
from tests.engine.builders import build_cluster as _build_cluster

JOB_LABEL = {"volcano.sh/job-name": "job-1"}


def _pod(name: str, labels: dict[str, str] | None = None, namespace: str = "default") -> TaskInfo:
    task = build_pod(name, namespace=namespace, status=TaskStatus.RUNNING, node="n1")
    task.template = TaskTemplate(namespace=namespace, labels=dict(labels or {}))
    return task


def _budget(
    allowed: int, *, disrupted: tuple[str, ...] = (), namespace: str = "default"
) -> PdbInfo:
    return PdbInfo(
        name="test-pdb",
        namespace=namespace,
        selector=PdbSelector(match_labels=tuple(JOB_LABEL.items())),
        disruptions_allowed=allowed,
        disrupted_pods=frozenset(disrupted),
    )


def _session(pdbs: list[PdbInfo], tasks: list[TaskInfo]) -> Session:
    jobs = [build_pod_group("job-1", tasks, namespace="default"), gang("new", 1)]
    cluster = _build_cluster([build_node("n1", cpu="8")], jobs)
    cluster.pdbs = pdbs
    return open_session(cluster, conf("enqueue, allocate, preempt, reclaim, shuffle", ("pdb",)))


@pytest.mark.parametrize(
    ("pdbs", "kept"),
    [
        ([], ["test-pod1", "test-pod2"]),  # test without pdbs
        ([_budget(0)], []),  # can evict 0 pod
        ([_budget(1)], ["test-pod1"]),  # can evict 1 pod
    ],
    ids=["without-pdbs", "evict-0", "evict-1"],
)
def test_preemptable_reclaimable_and_victims_follow_the_budget(
    pdbs: list[PdbInfo], kept: list[str]
) -> None:
    tasks = [_pod("test-pod1", JOB_LABEL), _pod("test-pod2", JOB_LABEL)]
    ssn = _session(pdbs, tasks)
    preemptor = build_pod("p")

    assert [t.name for t in ssn.preemptable(preemptor, tasks)] == kept
    assert [t.name for t in ssn.reclaimable(preemptor, tasks)] == kept
    assert sorted(t.name for t in ssn.victim_tasks(tasks)) == kept


def test_each_call_starts_from_the_budget_again() -> None:
    tasks = [_pod("test-pod1", JOB_LABEL), _pod("test-pod2", JOB_LABEL)]
    ssn = _session([_budget(1)], tasks)
    preemptor = build_pod("p")

    assert [t.name for t in ssn.preemptable(preemptor, tasks[1:])] == ["test-pod2"]
    assert [t.name for t in ssn.preemptable(preemptor, tasks[1:])] == ["test-pod2"]


def test_a_pod_refused_by_one_budget_still_charges_the_others() -> None:
    other = PdbInfo(
        name="app",
        namespace="default",
        selector=PdbSelector(match_labels=(("app", "web"),)),
        disruptions_allowed=1,
    )
    first = _pod("test-pod1", {**JOB_LABEL, "app": "web"})
    second = _pod("test-pod2", {"app": "web"})
    ssn = _session([_budget(0), other], [first, second])

    # first breaks test-pdb and takes app's only disruption: second is refused by app.
    assert ssn.preemptable(build_pod("p"), [first, second]) == []


def test_unlabelled_pods_and_other_namespaces() -> None:
    bare = _pod("bare")
    elsewhere = _pod("elsewhere", JOB_LABEL, namespace="other")
    listed = _pod("listed", JOB_LABEL)
    ssn = _session([_budget(0, disrupted=("listed",))], [bare, elsewhere, listed])

    assert [t.name for t in ssn.preemptable(build_pod("p"), [bare, elsewhere, listed])] == [
        "elsewhere",
        "listed",
    ]


def test_selector_forms() -> None:
    labels = {"app": "web", "tier": "front"}
    assert PdbSelector(expressions=(("app", "In", ("web", "api")),)).matches(labels)
    assert not PdbSelector(expressions=(("app", "NotIn", ("web",)),)).matches(labels)
    assert PdbSelector(expressions=(("tier", "Exists", ()),)).matches(labels)
    assert not PdbSelector(expressions=(("tier", "DoesNotExist", ()),)).matches(labels)
    empty = PdbInfo(name="e", namespace="default", selector=PdbSelector())
    missing = PdbInfo(name="m", namespace="default", selector=None)
    assert not empty.selects("default", labels)
    assert not missing.selects("default", labels)


_SCENARIO = """
name: pdb-input
objects:
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: ns}
  spec:
    minAvailable: 50%
    unhealthyPodEvictionPolicy: AlwaysAllow
    selector:
      matchLabels: {app: web}
      matchExpressions: [{key: tier, operator: In, values: [front]}]
  status:
    disruptionsAllowed: 2
    disruptedPods: {web-0: '2024-01-01T00:00:00Z'}
    currentHealthy: 3
    desiredHealthy: 2
    expectedPods: 4
    observedGeneration: 1
    conditions: []
"""


def test_scenario_reads_a_pod_disruption_budget() -> None:
    (pdb,) = load_scenario(_SCENARIO).cluster.pdbs

    assert pdb.uid == "ns/web"
    assert pdb.disruptions_allowed == 2
    assert pdb.disrupted_pods == frozenset({"web-0"})
    assert pdb.selects("ns", {"app": "web", "tier": "front"})
    assert not pdb.selects("ns", {"app": "web"})


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("operator: In", "operator: Near", "matchExpressions[0].operator"),
        ("values: [front]", "values: []", "matchExpressions[0].values"),
        ("disruptionsAllowed: 2", "disruptionsAllowed: -1", "status.disruptionsAllowed"),
        ("observedGeneration: 1", "observedGenerations: 1", "status.observedGenerations"),
        ("minAvailable: 50%", "minAvailable: [1]", "spec.minAvailable"),
    ],
)
def test_scenario_names_the_bad_budget_field(old: str, new: str, field: str) -> None:
    with pytest.raises(ManifestError) as caught:
        load_scenario(_SCENARIO.replace(old, new))

    assert "PodDisruptionBudget ns/web" in caught.value.field
    assert caught.value.field.endswith(field)


def test_cluster_without_budgets_has_none() -> None:
    assert _build_cluster([build_node("n1")], [], now=T0).pdbs == []
