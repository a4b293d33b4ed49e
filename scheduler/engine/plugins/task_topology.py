"""task-topology plugin: place a job's tasks by their affinity and anti-affinity to each other.

Volcano's counterpart: ``pkg/scheduler/plugins/task-topology``. Jobs with pending pods whose
PodGroup carries ``volcano.sh/task-topology-affinity``, ``-anti-affinity`` or ``-task-order``
(``task_topology_manager``) get buckets at session open. Task order: pods in a bucket before
pods outside any; within a job, bigger bucket first, then the older bucket, then the task order
and topology strength. Node score: (pods of the bucket already on the node + the bucket's
pending pods - anti-affinity conflicts with the job's pods bound on the node this session -
pods that must be dropped for the bucket to fit the node's idle + releasing) x
``task-topology.weight`` x 100 / largest bucket; 0 on a node the pod does not fit.
"""

from __future__ import annotations

from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.resource import PODS, Resource
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import ArgSpec, Plugin, Session, register_plugin
from scheduler.engine.framework.interface import Event, EventHandler
from scheduler.engine.plugins.task_topology_manager import JobManager, read_topology, task_name

__all__ = ["MAX_NODE_SCORE", "WEIGHT", "TaskTopologyPlugin"]

WEIGHT = "task-topology.weight"
MAX_NODE_SCORE = 100
_KEY = "task-topology"


def _fits(request: Resource, room: Resource) -> bool:
    """Return True when every amount asked is within ``room`` (the pod count is not compared:
    Volcano's resources hold it apart)."""
    return all(amount <= room.get(name) for name, amount in request.items() if name != PODS)


@register_plugin
class TaskTopologyPlugin(Plugin):
    """Buckets of a job's tasks meant for one node: their order and their node score."""

    name = "task-topology"
    arguments_schema = (
        ArgSpec(WEIGHT, int, 1, help="multiplier of the bucket node score"),
    )  # fmt: skip

    def on_session_open(self, ssn: Session) -> None:
        """Build every topology job's buckets, then register the task order and node score."""
        self._weight = self.arguments.get_int(WEIGHT)
        self._managers: dict[str, JobManager] = {}
        for job in ssn.jobs.values():
            tasks = list(job.tasks.values())
            if not any(t.status == TaskStatus.PENDING for t in tasks):
                continue
            topology = read_topology(job.annotations, tasks)
            if topology is None:
                continue
            manager = JobManager(topology)
            manager.construct(tasks)
            self._managers[job.uid] = manager
        if not self._managers:
            return  # no job with a topology: order and score would be 0 everywhere
        self._jobs = {uid: ssn.jobs[uid] for uid in self._managers}
        for uid in self._managers:
            self._rekey(uid, 0)
        ssn.add_task_order_fn(self.name, self._task_order)
        ssn.add_node_order_fn(self.name, self._node_order)
        ssn.add_event_handler(EventHandler(self._allocated, None))

    def _task_order(self, left: TaskInfo, right: TaskInfo) -> int:
        lm, rm = self._managers.get(left.job), self._managers.get(right.job)
        if lm is None or rm is None:
            return 0
        lb, rb = lm.bucket_of(left), rm.bucket_of(right)
        if (lb is None) != (rb is None):
            return -1 if lb is not None else 1
        if left.job != right.job or lb is None or rb is None:
            return 0
        if len(lb.tasks) != len(rb.tasks):
            return -1 if len(lb.tasks) > len(rb.tasks) else 1
        if lb.index == rb.index:
            return -lm.affinity_order(left, right)
        return -1 if lb.index < rb.index else 1

    def _node_order(self, task: TaskInfo, node: NodeInfo) -> float:
        manager = self._managers.get(task.job)
        room = node.idle + node.releasing
        if not _fits(task.resreq, room):
            return 0.0
        if manager is None:
            return 0.0
        bucket = manager.bucket_of(task)
        score = 0
        if bucket is not None:
            score = bucket.node.get(node.name, 0)
            held = manager.node_tasks.get(node.name)
            if held:
                conflict = manager.set_affinity(task_name(task), held, only_anti=True)
                score += min(conflict, 0)
            score += len(bucket.tasks)
            if not _fits(bucket.request, room):
                remains = bucket.request
                for uid, other in bucket.tasks.items():
                    if uid == task.uid:
                        continue
                    remains = remains - other.resreq
                    score -= 1
                    if _fits(remains, room):
                        break
        result = float(score * self._weight)
        if manager.bucket_max_size:
            result = result * MAX_NODE_SCORE / manager.bucket_max_size
        return result

    def _rekey(self, job: str, version: int) -> None:
        """Give the job's bucketed pods node-answer cache keys of their own, per bucket state.

        A bucket pod's score depends on the pod itself and on every placement of its job, so
        its cached scores are keyed by the pod and by how many of the job's pods were placed.
        """
        manager = self._managers[job]
        for task in self._jobs[job].tasks.values():
            if task.status == TaskStatus.PENDING and manager.bucket_of(task) is not None:
                key = task.template_key or task.compute_template_key()
                # Other plugins may append their own parts; only ours is replaced.
                kept = tuple(k for k in key if not (isinstance(k, tuple) and k[:1] == (_KEY,)))
                task.template_key = (*kept, (_KEY, task.uid, version))

    def _allocated(self, event: Event) -> None:
        manager = self._managers.get(event.task.job)
        if manager is not None:
            manager.task_bound(event.task)
            manager.version += 1
            self._rekey(event.task.job, manager.version)
