"""task-topology's per-job state: the job's topology, its buckets and which tasks sit where.

Volcano's counterparts: ``plugins/task-topology/{manager,bucket,util}.go``. A job's PodGroup
annotations name task (``volcano.sh/task-spec`` annotation) groups that should share a node
(affinity), must not (anti-affinity) and the order tasks go in. At session open the job's pods
of named tasks are grouped into buckets, each a set of pods meant for one node: a pod joins the
bucket with the best affinity minus anti-affinity to the tasks already in it (ties: the bucket
asking less), or opens a new one when every bucket repels it; pods already on a node share
that node's bucket.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from scheduler.engine.api.resource import CPU, MEMORY, PODS, Resource
from scheduler.engine.api.task_info import TaskInfo

__all__ = [
    "AFFINITY_ANNOTATION",
    "ANTI_AFFINITY_ANNOTATION",
    "TASK_ORDER_ANNOTATION",
    "TASK_SPEC_KEY",
    "Bucket",
    "JobManager",
    "TaskTopology",
    "read_topology",
    "task_name",
]

AFFINITY_ANNOTATION = "volcano.sh/task-topology-affinity"
ANTI_AFFINITY_ANNOTATION = "volcano.sh/task-topology-anti-affinity"
TASK_ORDER_ANNOTATION = "volcano.sh/task-topology-task-order"
TASK_SPEC_KEY = "volcano.sh/task-spec"

# How strongly a task is bound by its topology (a task keeps its strongest kind).
SELF_ANTI_AFFINITY = 4
INTER_AFFINITY = 3
SELF_AFFINITY = 2
INTER_ANTI_AFFINITY = 1


def task_name(task: TaskInfo) -> str:
    """Return the pod's task name: its ``volcano.sh/task-spec`` annotation (not the label)."""
    return task.annotations.get(TASK_SPEC_KEY, "")


@dataclass(slots=True)
class TaskTopology:
    """A job's topology as its PodGroup annotations give it."""

    affinity: list[list[str]] = field(default_factory=list)
    anti_affinity: list[list[str]] = field(default_factory=list)
    task_order: list[str] = field(default_factory=list)


def _check(names: set[str], groups: list[list[str]]) -> bool:
    """Return True when every non-empty name is a task of the job, at most once per group."""
    for group in groups:
        seen: set[str] = set()
        for name in group:
            if not name:
                continue
            if name not in names or name in seen:
                return False
            seen.add(name)
    return True


def read_topology(annotations: Mapping[str, str], tasks: list[TaskInfo]) -> TaskTopology | None:
    """Return the job's topology, or None when it has none or an annotation is invalid
    (Volcano then ignores the job)."""
    keys = (AFFINITY_ANNOTATION, ANTI_AFFINITY_ANNOTATION, TASK_ORDER_ANNOTATION)
    if not any(k in annotations for k in keys):
        return None
    names = {task_name(t) for t in tasks}
    topology = TaskTopology()
    for key, target in (
        (AFFINITY_ANNOTATION, topology.affinity),
        (ANTI_AFFINITY_ANNOTATION, topology.anti_affinity),
    ):
        if key in annotations:
            groups = [part.split(",") for part in annotations[key].split(";")]
            if not _check(names, groups):
                return None
            target.extend(groups)
    if TASK_ORDER_ANNOTATION in annotations:
        order = annotations[TASK_ORDER_ANNOTATION].split(",")
        if not _check(names, [order]):
            return None
        topology.task_order = order
    return topology


def _req_score(req: Resource) -> float:
    """Volcano's bucket request score: millicores + MiB of memory + every scalar's milli-units."""
    score = req.get(CPU) + req.get(MEMORY) / 1000 / 1024 / 1024
    for name, amount in req.items():
        if name not in (CPU, MEMORY, PODS):
            score += amount
    return float(score)


@dataclass(slots=True, eq=False)
class Bucket:
    """Pods meant for one node: pending ones (``tasks``) and how many are bound, per node."""

    index: int
    tasks: dict[str, TaskInfo] = field(default_factory=dict)
    task_names: dict[str, int] = field(default_factory=dict)
    req_score: float = 0.0
    request: Resource = field(default_factory=Resource)
    bound: int = 0
    node: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, task: TaskInfo) -> None:
        self.task_names[name] = self.task_names.get(name, 0) + 1
        if task.node_name:
            self.node[task.node_name] = self.node.get(task.node_name, 0) + 1
            self.bound += 1
            return
        self.tasks[task.uid] = task
        self.req_score += _req_score(task.resreq)
        self.request = self.request + task.resreq

    def task_bound(self, task: TaskInfo) -> None:
        self.node[task.node_name] = self.node.get(task.node_name, 0) + 1
        self.bound += 1
        self.tasks.pop(task.uid, None)
        self.req_score -= _req_score(task.resreq)
        self.request = self.request - task.resreq


class JobManager:
    """One job's affinities, task order, buckets and what of its tasks each node holds."""

    def __init__(self, topology: TaskTopology) -> None:
        self.buckets: list[Bucket] = []
        self.pod_bucket: dict[str, int] = {}  # pod uid -> bucket index (absent: out of bucket)
        self.pod_task: dict[str, str] = {}
        self.priority: dict[str, int] = {}
        self.order: dict[str, int] = {}
        self.inter_affinity: dict[str, set[str]] = {}
        self.self_affinity: set[str] = set()
        self.inter_anti: dict[str, set[str]] = {}
        self.self_anti: set[str] = set()
        self.bucket_max_size = 0
        self.node_tasks: dict[str, dict[str, int]] = {}  # node -> task name -> bound count
        self.version = 0  # placements of the job's pods this session (node-answer cache keys)
        self._apply(topology)

    def _mark(self, name: str, priority: int) -> None:
        if priority > self.priority.get(name, 0):
            self.priority[name] = priority

    def _apply(self, topology: TaskTopology) -> None:
        for groups, self_set, inter, self_kind, inter_kind in (
            (topology.affinity, self.self_affinity, self.inter_affinity,
             SELF_AFFINITY, INTER_AFFINITY),
            (topology.anti_affinity, self.self_anti, self.inter_anti,
             SELF_ANTI_AFFINITY, INTER_ANTI_AFFINITY),
        ):  # fmt: skip
            for group in groups:
                if len(group) == 1:
                    self_set.add(group[0])
                    self._mark(group[0], self_kind)
                    continue
                for i, src in enumerate(group):
                    for dst in group[:i]:
                        inter.setdefault(src, set()).add(dst)
                        inter.setdefault(dst, set()).add(src)
                    self._mark(src, inter_kind)
        for i, name in enumerate(topology.task_order):
            self.order[name] = len(topology.task_order) - i

    def affinity_order(self, left: TaskInfo, right: TaskInfo) -> int:
        """Volcano's ``taskAffinityOrder``: positive when ``left``'s task ranks higher (earlier
        in the task order, then stronger topology), negative when lower, 0 when even."""
        lname, rname = self.pod_task.get(left.uid, ""), self.pod_task.get(right.uid, "")
        if lname == rname:
            return 0
        lo, ro = self.order.get(lname, 0), self.order.get(rname, 0)
        if lo != ro:
            return 1 if lo > ro else -1
        lp, rp = self.priority.get(lname, 0), self.priority.get(rname, 0)
        if lp != rp:
            return 1 if lp > rp else -1
        return 0

    def set_affinity(self, name: str, names: Mapping[str, int], *, only_anti: bool) -> int:
        """Return affinity minus anti-affinity of task ``name`` to the counted task names."""
        total = 0
        if not name:
            return 0
        for other, count in names.items():
            same = other == name
            if not only_anti:
                if same:
                    attracted = name in self.self_affinity
                else:
                    attracted = other in self.inter_affinity.get(name, ())
                if attracted:
                    total += count
            repelled = name in self.self_anti if same else other in self.inter_anti.get(name, ())
            if repelled:
                total -= count
        return total

    def construct(self, tasks: list[TaskInfo]) -> None:
        """Put the job's pods of tasks with a topology into buckets."""
        ranked: list[TaskInfo] = []
        for task in tasks:
            name = task_name(task)
            if name and name in self.priority:
                self.pod_task[task.uid] = name
                ranked.append(task)
        # Volcano sorts with the reverse of: pods on a node after those without (by node name
        # descending), else by affinity order, then pod name descending.
        bound = sorted((t for t in ranked if t.node_name), key=lambda t: (t.node_name, t.name))
        pending = [t for t in ranked if not t.node_name]
        pending = self._affinity_sorted(pending)
        by_node: dict[str, Bucket] = {}
        for task in bound + pending:
            name = task_name(task)
            chosen: Bucket | None = None
            best = -(2**31)
            if task.node_name:
                best = 0
                chosen = by_node.get(task.node_name)
            else:
                for bucket in self.buckets:
                    score = self.set_affinity(name, bucket.task_names, only_anti=False)
                    if score > best:
                        best, chosen = score, bucket
                    elif (
                        score == best and chosen is not None and bucket.req_score < chosen.req_score
                    ):
                        chosen = bucket
            if best < 0 or chosen is None:
                chosen = Bucket(index=len(self.buckets))
                self.buckets.append(chosen)
                if task.node_name:
                    by_node[task.node_name] = chosen
            self.pod_bucket[task.uid] = chosen.index
            chosen.add(name, task)
            self.bucket_max_size = max(self.bucket_max_size, len(chosen.tasks) + chosen.bound)

    def _affinity_sorted(self, tasks: list[TaskInfo]) -> list[TaskInfo]:
        """Order pending pods higher affinity order first, then pod name ascending."""

        def cmp(a: TaskInfo, b: TaskInfo) -> int:
            result = self.affinity_order(a, b)
            if result:
                return -result
            return -1 if a.name < b.name else (1 if a.name > b.name else 0)

        return sorted(tasks, key=functools.cmp_to_key(cmp))

    def task_bound(self, task: TaskInfo) -> None:
        """Count a pod placed this session on its node and in its bucket."""
        name = task_name(task)
        if name:
            held = self.node_tasks.setdefault(task.node_name, {})
            held[name] = held.get(name, 0) + 1
        bucket = self.bucket_of(task)
        if bucket is not None:
            bucket.task_bound(task)

    def bucket_of(self, task: TaskInfo) -> Bucket | None:
        index = self.pod_bucket.get(task.uid)
        return None if index is None else self.buckets[index]
