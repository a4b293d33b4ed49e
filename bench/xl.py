"""XL: 20,000 nodes and 200,000 pods in 5,000 jobs over 100 queues (issue 34's scale).

The cluster, at full size:

- 20,000 nodes of three sizes (16, 32 and 64 CPUs with 4 GiB of memory per CPU, in turn), every
  tenth with 8 GPUs, in three zones (``topology.kubernetes.io/zone``);
- 2,500 running jobs of 40 small pods (1 CPU / 1 GiB), five pods per node;
- 2,500 pending gang jobs of 40 pods: 60 % small, 30 % medium (4 CPU / 16 GiB), 10 % GPU (8 CPU /
  64 GiB / 1 GPU), spread over the queues in turn;
- 100 queues (weights 1-4) under Volcano's default plugins (``XL``), or the same jobs under
  ``capacity`` with ``enableHierarchy``: 10 departments under ``root`` of 10 queues each, each
  department deserving a tenth of the cluster (``XL-capacity``).

``XL/4`` and ``XL/2`` are the same shapes at a quarter and half of every count, so the set
prints how a session's time grows with the cluster. Everything pending fits: the session
binds about 100,000 pods at full size.
"""

from __future__ import annotations

import random

from bench.builders import CONFS, GI, T0, Case, Workload, cluster, job
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.resource import Resource

__all__ = ["xl"]

NODES = 20_000
JOBS = 5_000
QUEUES = 100
PODS_PER_JOB = 40
DEPARTMENTS = 10
ZONES = ("zone-a", "zone-b", "zone-c")
GPU = "nvidia.com/gpu"
MIX = ((0.6, "small"), (0.3, "medium"), (0.1, "gpu"))

CAPACITY_CONF = (
    'actions: "enqueue, allocate, backfill"\ntiers:\n'
    "- plugins:\n  - name: priority\n  - name: gang\n  - name: conformance\n"
    "- plugins:\n  - name: drf\n  - name: predicates\n  - name: capacity\n"
    "    enableHierarchy: true\n  - name: nodeorder\n  - name: binpack\n"
)


def _nodes(count: int) -> list[NodeInfo]:
    nodes = []
    for i in range(count):
        cpus = (16, 32, 64)[i % 3]
        amounts = {"cpu": cpus * 1000, "memory": cpus * 4 * GI, "pods": 110_000}
        if i % 10 == 0:
            amounts[GPU] = 8000
        name = f"xl-{i:05d}"
        zone = ZONES[(i // 3) % len(ZONES)]  # every size in every zone
        labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}
        nodes.append(NodeInfo(name=name, allocatable=Resource(amounts), labels=labels))
    return nodes


def _jobs(rng: random.Random, nodes: list[NodeInfo], jobs: int, queues: int) -> list[JobInfo]:
    """Half the jobs running (five small pods per node, in turn), half pending by ``MIX``."""
    names = [n.name for n in nodes]
    running, out = jobs // 2, []
    for j in range(running):
        start = j * PODS_PER_JOB
        placed = [names[(start + p) % len(names)] for p in range(PODS_PER_JOB)]
        out.append(
            job(
                f"run-{j}",
                f"q{j % queues}",
                "small",
                PODS_PER_JOB,
                min_member=PODS_PER_JOB,
                minute=j,
                running_on=placed,
            )
        )
    for j in range(jobs - running):
        roll, acc, kind = rng.random(), 0.0, MIX[-1][1]
        for share, candidate in MIX:
            acc += share
            if roll < acc:
                kind = candidate
                break
        out.append(
            job(
                f"{kind}-{j}",
                f"q{(running + j) % queues}",
                kind,
                PODS_PER_JOB,
                min_member=PODS_PER_JOB,
                minute=running + j,
            )
        )
    return out


def _flat_queues(count: int) -> list[QueueInfo]:
    return [QueueInfo(name=f"q{i}", weight=1 + i % 4, creation_timestamp=T0) for i in range(count)]


def _capacity_queues(count: int, nodes: list[NodeInfo]) -> list[QueueInfo]:
    """``root`` > 10 departments (a tenth of the cluster each) > the queues, 10 per department."""
    total = Resource()
    for node in nodes:
        total = total + node.allocatable
    tenth = Resource({k: v // DEPARTMENTS for k, v in total.items() if k != "pods"})
    queues = [QueueInfo(name="root", creation_timestamp=T0)]
    per = max(count // DEPARTMENTS, 1)
    for d in range(DEPARTMENTS):
        queues.append(
            QueueInfo(name=f"dept-{d}", parent="root", deserved=tenth, creation_timestamp=T0)
        )
    for i in range(count):
        queues.append(
            QueueInfo(
                name=f"q{i}",
                weight=1 + i % 4,
                parent=f"dept-{min(i // per, 9)}",
                creation_timestamp=T0,
            )
        )
    return queues


def xl(seed: int) -> Workload:
    """XL/4, XL/2, XL and XL-capacity (see the module docstring)."""

    def case(label: str, divisor: int, *, capacity: bool = False) -> Case:
        def build() -> ClusterInfo:
            rng = random.Random(seed)
            nodes = _nodes(NODES // divisor)
            queue_count = QUEUES // divisor
            jobs = _jobs(rng, nodes, JOBS // divisor, queue_count)
            queues = _capacity_queues(queue_count, nodes) if capacity else _flat_queues(queue_count)
            return cluster(nodes, jobs, queues)

        return Case(label, CAPACITY_CONF if capacity else CONFS["default+binpack"], build)

    return Workload(
        "XL",
        seed,
        [case("XL/4", 4), case("XL/2", 2), case("XL", 1), case("XL-capacity", 1, capacity=True)],
    )
