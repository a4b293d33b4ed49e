"""Properties of full sessions on random small clusters (hypothesis): queue plugins, preempt, reclaim.

Each example is a plain description (nodes, queues with weights, capabilities and states, jobs
with some pods already running) turned into a fresh snapshot and run through all five actions
with the default tiers plus binpack, so proportion, drf, overcommit, preemption and reclaim take
part (``test_properties.py`` covers the core rules with a probe plugin). Checked: no node holds
more than its allocatable, a gang gets minMember pods or none, a Closed queue gets nothing new, a
queue stays within its capability, and the same input gives the same decisions.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.types import ALLOCATED_STATUSES, PodGroupPhase, QueueState, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Decisions, run_session
from tests.engine.builders import T0, build_cluster, build_node, build_pod, build_pod_group, res

CONF = load_conf(
    """\
actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""
)


@dataclass(frozen=True)
class NodeSpec:
    cpu: int
    pods: int


@dataclass(frozen=True)
class QueueSpec:
    weight: int
    closed: bool
    capability: int | None  # cpu
    reclaimable: bool


@dataclass(frozen=True)
class JobSpec:
    queue: int
    size: int
    min_member: int
    cpu: int
    priority: int
    running: int  # how many pods try to start Running on a node
    pending_phase: bool
    min_resources: bool


@dataclass(frozen=True)
class ClusterSpec:
    nodes: tuple[NodeSpec, ...]
    queues: tuple[QueueSpec, ...]
    jobs: tuple[JobSpec, ...]


@st.composite
def cluster_specs(draw: st.DrawFn) -> ClusterSpec:
    nodes = draw(
        st.lists(
            st.builds(NodeSpec, st.sampled_from([2, 4, 8]), st.sampled_from([3, 110])),
            min_size=1,
            max_size=4,
        )
    )
    queues = draw(
        st.lists(
            st.builds(
                QueueSpec,
                st.integers(1, 4),
                st.sampled_from([False, False, False, True]),  # Closed now and then
                st.sampled_from([None, 2, 4, 8]),
                st.booleans(),
            ),
            min_size=1,
            max_size=3,
        )
    )
    jobs = []
    for _ in range(draw(st.integers(1, 8))):
        size = draw(st.integers(1, 4))
        jobs.append(
            JobSpec(
                queue=draw(st.integers(0, len(queues) - 1)),
                size=size,
                min_member=draw(st.integers(1, size)),
                cpu=draw(st.sampled_from([1, 2])),
                priority=draw(st.sampled_from([0, 100, 1000])),
                running=draw(st.integers(0, size)),
                pending_phase=draw(st.booleans()),
                min_resources=draw(st.booleans()),
            )
        )
    return ClusterSpec(tuple(nodes), tuple(queues), tuple(jobs))


def build(spec: ClusterSpec) -> ClusterInfo:
    """Return a fresh snapshot of ``spec``; running pods only where they fit."""
    free = [[n.cpu, n.pods] for n in spec.nodes]
    nodes = [
        build_node(f"n{i}", cpu=str(n.cpu), memory="64Gi", pods=n.pods)
        for i, n in enumerate(spec.nodes)
    ]
    queues = [
        QueueInfo(
            name=f"q{i}",
            weight=q.weight,
            state=QueueState.CLOSED if q.closed else QueueState.OPEN,
            capability=None if q.capability is None else res(cpu=str(q.capability)),
            reclaimable=q.reclaimable,
            creation_timestamp=T0,
        )
        for i, q in enumerate(spec.queues)
    ]
    jobs = []
    for j, job in enumerate(spec.jobs):
        pods = []
        for k in range(job.size):
            host = ""
            if k < job.running:
                host = next(
                    (f"n{i}" for i, f in enumerate(free) if f[0] >= job.cpu and f[1] >= 1), ""
                )
                if host:
                    slot = free[int(host[1:])]
                    slot[0] -= job.cpu
                    slot[1] -= 1
            pods.append(
                build_pod(
                    f"j{j}-task-{k}",
                    cpu=str(job.cpu),
                    status=TaskStatus.RUNNING if host else TaskStatus.PENDING,
                    node=host,
                    minutes=j,
                )
            )
        started = any(p.node_name for p in pods)
        phase = (
            PodGroupPhase.RUNNING
            if started
            else (PodGroupPhase.PENDING if job.pending_phase else PodGroupPhase.INQUEUE)
        )
        jobs.append(
            build_pod_group(
                f"j{j}",
                pods,
                queue=f"q{job.queue}",
                min_member=job.min_member,
                phase=phase,
                priority=job.priority,
                minutes=j,
                min_resources=res(cpu=str(job.cpu * job.min_member)) if job.min_resources else None,
            )
        )
    return build_cluster(nodes, jobs, queues)


def _cpu(resource: Resource) -> int:
    return resource.get("cpu")


def _holding(cluster: ClusterInfo, decisions: Decisions) -> dict[str, list[str]]:
    """Return, per node, the tasks on it after the session: kept, bound and pipelined."""
    evicted = {e.task for e in decisions.evictions}
    out: dict[str, list[str]] = {name: [] for name in cluster.nodes}
    for job in cluster.jobs.values():
        for task in job.tasks.values():
            if task.uid in decisions.binds:
                out[decisions.binds[task.uid]].append(task.uid)
            elif task.uid in decisions.pipelined:
                out[decisions.pipelined[task.uid]].append(task.uid)
            elif task.node_name and task.uid not in evicted and task.status != TaskStatus.PENDING:
                out[task.node_name].append(task.uid)
    return out


SETTINGS = settings(max_examples=100, deadline=None, derandomize=True)


def no_node_over_allocatable(cluster: ClusterInfo, decisions: Decisions) -> None:
    """No node holds more cpu or pods than it has, counting kept, bound and pipelined tasks."""
    requests = {t.uid: t.resreq for j in cluster.jobs.values() for t in j.tasks.values()}
    for name, uids in _holding(cluster, decisions).items():
        node = cluster.nodes[name]
        assert sum(_cpu(requests[u]) for u in uids) <= _cpu(node.allocatable), name
        assert len(uids) <= node.max_task_num, name
    assert (cluster.arrays.future_idle >= 0).all()
    assert (cluster.arrays.used <= cluster.arrays.allocatable).all()


def gangs_all_or_nothing(cluster: ClusterInfo, decisions: Decisions, fresh: set[str]) -> None:
    """A job that held nothing gets at least minMember binds, or none."""
    for uid in fresh:
        job = cluster.jobs[uid]
        bound = sum(1 for t in job.tasks if t in decisions.binds)
        assert bound == 0 or bound >= job.min_available, (uid, bound)


def closed_queues_get_nothing(cluster: ClusterInfo, decisions: Decisions) -> None:
    """No task of a job in a Closed queue is bound or pipelined."""
    placed = set(decisions.binds) | set(decisions.pipelined)
    for job in cluster.jobs.values():
        if cluster.queues[job.queue].state == QueueState.CLOSED:
            assert not placed & set(job.tasks), job.uid


def queues_within_capability(
    cluster: ClusterInfo, decisions: Decisions, before: dict[str, int]
) -> None:
    """A queue that started within its cpu capability ends within it."""
    placed = set(decisions.binds) | set(decisions.pipelined)
    after = _queue_cpu(cluster, placed, {e.task for e in decisions.evictions})
    for name, queue in cluster.queues.items():
        if queue.capability is None or before.get(name, 0) > _cpu(queue.capability):
            continue
        assert after.get(name, 0) <= _cpu(queue.capability), name


@SETTINGS
@given(cluster_specs())
def test_every_session_keeps_nodes_gangs_closed_queues_and_capabilities(spec: ClusterSpec) -> None:
    cluster = build(spec)
    fresh = {uid for uid, j in cluster.jobs.items() if not j.count(*ALLOCATED_STATUSES)}
    before = _queue_cpu(cluster, set(), set())
    decisions = run_session(cluster, CONF)
    no_node_over_allocatable(cluster, decisions)
    gangs_all_or_nothing(cluster, decisions, fresh)
    closed_queues_get_nothing(cluster, decisions)
    queues_within_capability(cluster, decisions, before)


def _queue_cpu(cluster: ClusterInfo, placed: set[str], evicted: set[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for job in cluster.jobs.values():
        for task in job.tasks.values():
            holds = task.uid in placed or (
                task.status in (TaskStatus.RUNNING, TaskStatus.BOUND) and task.uid not in evicted
            )
            if task.uid in evicted:
                holds = False
            if holds:
                out[job.queue] = out.get(job.queue, 0) + _cpu(task.resreq)
    return out


@SETTINGS
@given(cluster_specs())
def test_the_same_input_gives_the_same_decisions(spec: ClusterSpec) -> None:
    first = run_session(build(spec), CONF)
    second = run_session(build(spec), CONF)
    assert first == second
    assert first.evictions == second.evictions
