"""L-topology: L-basic's size on a three-tier network topology, with vGPU nodes and jobs.

The cluster is L-basic's (5,000 standard nodes, 8 queues, 50 jobs x 100 small pods running, one
per node, and 500 pending gang jobs x 100 small pods), cabled as:

- tier 1, 625 leaf switches of 8 nodes (``leaf-NNN``, exact node members);
- tier 2, 79 spines of 8 leaves = 64 nodes (``spine-NN``; the last one holds the remainder);
- tier 3, 2 pods of 2,500 nodes (``pod-0``, ``pod-1``), matching their nodes by regular
  expression on the name, as an operator would;
- Volcano's virtual top HyperNode above them (tier 4).

Every other pending job (250) is hard-topology with ``highestTierAllowed: 2`` (a job of 100 small
pods fits in one leaf switch); the rest have no topology and get HyperNode binpacking. Every fifth
node (1,000) also registers 4 vGPU cards (hami-core, 10 slots and 32,000 MiB each), and 100 more
pending jobs of 10 pods each ask 1 vGPU with 4,000 MiB. Conf: L-basic's plus ``deviceshare`` with
``deviceshare.VGPUEnable`` and ``network-topology-aware``.
"""

from __future__ import annotations

from datetime import timedelta

from bench.builders import CONFS, T0, Case, Workload, build_nodes, cluster, job, job_of, queues
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.devices.requests import ContainerDevices, DeviceContainers
from scheduler.engine.api.hypernode import HyperNodeInfo, HyperNodeMember, NetworkTopology
from scheduler.engine.api.resource import Resource

__all__ = ["l_topology"]

NODES = 5000
LEAF = 8
SPINE_LEAVES = 8
# node-00000 .. node-02499 and node-02500 .. node-04999
POD_PATTERNS = ("^node-0([01][0-9]{3}|2[0-4][0-9]{2})$", "^node-0(2[5-9][0-9]{2}|[34][0-9]{3})$")
VGPU_EVERY = 5
VGPU_NUMBER = "volcano.sh/vgpu-number"
VGPU_MEMORY = "volcano.sh/vgpu-memory"
VGPU_CORES = "volcano.sh/vgpu-cores"
CARDS = 4

CONF = CONFS["default+binpack"] + (
    "  - name: deviceshare\n"
    "    arguments:\n"
    "      deviceshare.VGPUEnable: true\n"
    "  - name: network-topology-aware\n"
)


def _topology(names: list[str]) -> list[HyperNodeInfo]:
    """Return the leaves, spines and pods over ``names`` (see the module docstring)."""
    out: list[HyperNodeInfo] = []
    leaves = [names[i : i + LEAF] for i in range(0, len(names), LEAF)]
    for i, members in enumerate(leaves):
        nodes = tuple(HyperNodeMember(type="Node", exact_match=n) for n in members)
        out.append(HyperNodeInfo(f"leaf-{i:03d}", 1, "leaf", nodes))
    spines = [
        list(range(i, min(i + SPINE_LEAVES, len(leaves))))
        for i in range(0, len(leaves), SPINE_LEAVES)
    ]
    for s, leaf_ids in enumerate(spines):
        children = tuple(
            HyperNodeMember(type="HyperNode", exact_match=f"leaf-{i:03d}") for i in leaf_ids
        )
        out.append(HyperNodeInfo(f"spine-{s:02d}", 2, "spine", children))
    for p, pattern in enumerate(POD_PATTERNS):
        member = HyperNodeMember(type="Node", regex_match=pattern)
        out.append(HyperNodeInfo(f"pod-{p}", 3, "pod", (member,)))
    return out


def _vgpu_register() -> str:
    return "".join(f"GPU-{c},10,32000,NVIDIA-A100,true,hami-core:" for c in range(CARDS))


def l_topology(seed: int) -> Workload:
    """Return the L-topology set (one case)."""

    def build() -> ClusterInfo:
        nodes = build_nodes(NODES)
        register = _vgpu_register()
        for i, node in enumerate(nodes):
            if i % VGPU_EVERY == 0:
                amounts = dict(node.allocatable.items())
                amounts.update(
                    {
                        VGPU_NUMBER: CARDS * 10 * 1000,
                        VGPU_MEMORY: CARDS * 32000 * 1000,
                        VGPU_CORES: CARDS * 100 * 1000,
                    }
                )
                node.allocatable = Resource(amounts)
                node.annotations = {**node.annotations, "volcano.sh/node-vgpu-register": register}
        names = [n.name for n in nodes]
        running = [
            job(f"run-{j}", f"q{j % 8}", "small", 100, min_member=100, minute=j,
                running_on=names[j * 100 : (j + 1) * 100])
            for j in range(50)
        ]  # fmt: skip
        pending = []
        for j in range(500):
            pending_job = job(f"l-{j}", f"q{j % 8}", "small", 100, min_member=100, minute=100 + j)
            if j % 2 == 0:
                pending_job.network_topology = NetworkTopology("hard", 2, "")
            pending.append(pending_job)
        vgpu_request = Resource(
            {"cpu": 1000, "memory": 1024**3 * 1000, "pods": 1000, VGPU_NUMBER: 1000,
             VGPU_MEMORY: 4000 * 1000}
        )  # fmt: skip
        devices = DeviceContainers(
            containers=(ContainerDevices(limits={VGPU_NUMBER: 1, VGPU_MEMORY: 4000}, requests={}),)
        )
        for j in range(100):
            gpu_job = job_of(f"g-{j}", f"q{j % 8}", vgpu_request, 10, min_member=10,
                             created=T0 + timedelta(seconds=600 + j))  # fmt: skip
            for task in gpu_job.tasks.values():
                task.device_containers = devices
            pending.append(gpu_job)
        snapshot = cluster(nodes, running + pending, queues([1] * 8))
        for hypernode in _topology(names):
            snapshot.hypernodes[hypernode.name] = hypernode
        return snapshot

    return Workload("L-topology", seed, [Case("L-topology", CONF, build)])
