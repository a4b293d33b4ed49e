"""The demo cluster and its steady stream of jobs (``make run DEMO=1``, ``manage.py demo_cluster``).

About twenty-five simulated nodes of mixed shapes (small and large CPU nodes, tainted GPU nodes,
a pool of vGPU nodes whose cards pods share, large nodes with two NUMA cells, a tainted infra
pair, zone labels) wired into a two-tier network of HyperNodes (``manifests/topology.yaml``),
a scheduler configuration that turns on deviceshare, numa-aware and network-topology-aware
(``manifests/scheduler-conf.yaml``, applied only over the default one, so an operator's own
policy survives a restart), three queues of weights 1, 2 and 4, and jobs that keep coming:
Volcano's four example jobs (the submit page's templates in ``jobs/examples/``, renamed per
submission) in turn with generated ones (CPU gangs, GPU jobs that tolerate the GPU taint, vGPU jobs that
share a card, hard-topology gangs that must land under one leaf switch, and now and then one
that exits non-zero and is restarted by its policy). Every job goes through
admission like any other submission. Finished jobs are removed after ``ttlSecondsAfterFinished``
so the demo can run all day. Beside them run the workflows of ``manifests/workflows.yaml``: a
three-step JobFlow (prepare, train, evaluate) and a CronJob that reports every five minutes of
the simulated clock (every thirty seconds at the demo's ten times speed).

``SIZE=xl`` (``make run DEMO=1 SIZE=xl``, ``manage.py demo_cluster --size xl``) adds issue 34's
XL pool to the same cluster: 20,000 nodes in all (``xl-00000``…: 16, 32 and 64 CPUs with 4 GiB
per CPU in turn, eight GPUs on every tenth, three zones, as ``bench/xl.py`` builds them), with
the same queues, policy and job stream; the stream then keeps up to ``XL_STREAM_CAP`` jobs
unfinished (``VOLCANO_DEMO_SIZE=xl`` in the server's environment) instead of thirty.
"""

from __future__ import annotations

import copy
import os
import random
import threading
import uuid
from pathlib import Path
from typing import Any

import yaml
from django.db import close_old_connections, transaction

from core.models import Node, PriorityClass
from core.network import NODE_NETWORK, cluster_cidr
from jobs.models import Job
from jobs.services import job_submit
from jobs.submit import EXAMPLES_DIR
from kube.changes import record_rows
from kube.manifests import apply_manifests, read_manifests
from kube.models import ChangeType
from kubelet.sim_devices import SIM_GPUS, SIM_NUMA
from queues.models import Queue
from queues.services import queue_ensure_builtin
from scheduler.defaults import DEFAULT_SCHEDULER_CONF
from scheduler.models import SchedulerConfiguration

__all__ = [
    "SIZES",
    "XL_STREAM_CAP",
    "DemoStream",
    "generated_job",
    "load_demo_cluster",
    "load_xl_nodes",
    "submit_next",
]

# The demo's queue and priority class; its example jobs are the submit page's (EXAMPLES_DIR).
MANIFESTS = Path(__file__).resolve().parent / "manifests"
EXAMPLE_JOBS = ("nginx-sleep.yaml", "mindspore-cpu.yaml", "tensorflow-dist-mnist.yaml",
                "test-job-volumes.yaml")  # fmt: skip
QUEUES = {"research": 1, "batch": 2, "production": 4}
GI = 1024**3 * 1000
FINISHED = ("Completed", "Failed", "Terminated", "Aborted")
# (prefix, count, cpu, memory Gi, gpus, taint, extra labels)
NODE_SHAPES: list[tuple[str, int, int, int, int, dict[str, str] | None, dict[str, str]]] = [
    ("cpu-small", 8, 8, 32, 0, None, {"node.kubernetes.io/instance-type": "c-8"}),
    ("cpu-large", 6, 32, 128, 0, None, {"node.kubernetes.io/instance-type": "c-32"}),
    ("gpu", 4, 16, 64, 4, {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
     {"accelerator": "nvidia-a100"}),
    ("infra", 2, 8, 16, 0, {"key": "dedicated", "value": "infra", "effect": "NoSchedule"},
     {"node-role.kubernetes.io/infra": ""}),
    ("vgpu", 4, 16, 64, 0, None, {"accelerator": "nvidia-a10", "demo.volcano.sh/leaf": "b2"}),
]  # fmt: skip
# The simulation knobs per pool (``kubelet.sim_devices``): the simulated device plugin and
# resource exporter register the cards and publish the NUMA cells from them.
NODE_KNOBS: dict[str, dict[str, str]] = {
    "vgpu": {SIM_GPUS: "count=2,memory=24576,type=NVIDIA-A10,mode=vgpu,slots=4"},
    "cpu-large": {SIM_NUMA: "cells=2,policy=single-numa-node"},
}


SIZES = ("", "xl")  # the demo's sizes: its own two dozen nodes, or issue 34's XL cluster
XL_NODES = 20_000
XL_STREAM_CAP = 300
SIZE_ENV = "VOLCANO_DEMO_SIZE"
_XL_ZONES = ("zone-a", "zone-b", "zone-c")


def load_xl_nodes(total: int = XL_NODES) -> int:
    """Add XL nodes until the cluster holds ``total`` nodes (idempotent); return how many.

    Written set-wise (one INSERT per 2,000 rows, recorded on the change stream as ADDED), as
    20,000 single saves would take minutes; each node comes with its pod range and address,
    the node IPAM controller's work (``core.network``), which one save per node would make a
    45-second first cycle of the scheduler loop.
    """
    missing = total - Node.objects.count()
    if missing <= 0:
        return 0
    taken = set(Node.objects.filter(name__startswith="xl-").values_list("name", flat=True))
    network, size = cluster_cidr()
    used = set(Node.objects.exclude(pod_cidr="").values_list("pod_cidr", flat=True))
    free = (subnet for subnet in network.subnets(new_prefix=size) if str(subnet) not in used)
    rows: list[Node] = []
    i = 0
    while len(rows) < missing:
        name = f"xl-{i:05d}"
        if name not in taken:
            cpus = (16, 32, 64)[i % 3]
            alloc = {"cpu": cpus * 1000, "memory": cpus * 4 * GI, "pods": 110_000}
            if i % 10 == 0:
                alloc["nvidia.com/gpu"] = 8000
            labels = {"kubernetes.io/hostname": name,
                      "topology.kubernetes.io/zone": _XL_ZONES[(i // 3) % len(_XL_ZONES)]}  # fmt: skip
            node = Node(name=name, uid=uuid.uuid4(), capacity=alloc, allocatable=alloc,
                        labels=labels)  # fmt: skip
            subnet = next(free, None)  # none left: the IPAM controller warns, as it would
            if subnet is not None:
                node.pod_cidr = str(subnet)
                index = (int(subnet.network_address) - int(network.network_address)) // (
                    subnet.num_addresses
                )
                if index + 2 < NODE_NETWORK.num_addresses - 1:
                    address = str(NODE_NETWORK.network_address + index + 2)
                    node.addresses = [{"type": "InternalIP", "address": address}]
            rows.append(node)
        i += 1
    with transaction.atomic():
        created = Node.objects.bulk_create(rows, batch_size=2000)
        record_rows(Node, [node.pk for node in created], ChangeType.ADDED)
    return len(created)


def load_demo_cluster() -> list[str]:
    """Create the nodes, queues and priority classes (idempotent); return what was created."""
    created: list[str] = [f"queue/{name}" for name in queue_ensure_builtin()]
    with transaction.atomic():
        for prefix, count, cpu, memory, gpus, taint, labels in NODE_SHAPES:
            for i in range(count):
                alloc = {"cpu": cpu * 1000, "memory": memory * GI, "pods": 110_000}
                if gpus:
                    alloc["nvidia.com/gpu"] = gpus * 1000
                node_labels = {**labels, "topology.kubernetes.io/zone": "zone-" + "ab"[i % 2],
                               "kubernetes.io/hostname": f"{prefix}-{i}"}  # fmt: skip
                knobs = NODE_KNOBS.get(prefix, {})
                node, made = Node.objects.get_or_create(
                    name=f"{prefix}-{i}",
                    defaults={"capacity": alloc, "allocatable": alloc, "labels": node_labels,
                              "annotations": dict(knobs), "taints": [taint] if taint else []},
                )  # fmt: skip
                if made:
                    created.append(f"node/{prefix}-{i}")
                elif any(node.annotations.get(key) is None for key in knobs):
                    # A demo database from before the pool had knobs: give them (keep the rest).
                    node.annotations = {**knobs, **node.annotations}
                    node.save()
        for name, weight in QUEUES.items():
            _, made = Queue.objects.get_or_create(name=name, defaults={"weight": weight})
            if made:
                created.append(f"queue/{name}")
        _, made = PriorityClass.objects.get_or_create(name="low-priority", defaults={"value": 10})
        if made:
            created.append("priorityclass/low-priority")
    apply_manifests(read_manifests(MANIFESTS / "test.yaml"))
    apply_manifests(read_manifests(MANIFESTS / "high-priority-class.yaml"))
    apply_manifests(read_manifests(MANIFESTS / "workflows.yaml"))
    apply_manifests(read_manifests(MANIFESTS / "topology.yaml"))
    active = SchedulerConfiguration.objects.filter(is_active=True).first()
    if active is None or active.text == DEFAULT_SCHEDULER_CONF:
        apply_manifests(read_manifests(MANIFESTS / "scheduler-conf.yaml"))
    return created


def _example(n: int) -> dict[str, Any]:
    name = EXAMPLE_JOBS[(n // 4) % len(EXAMPLE_JOBS)]
    doc: dict[str, Any] = copy.deepcopy(yaml.safe_load((EXAMPLES_DIR / name).read_text()))
    doc["metadata"]["name"] = f"{doc['metadata']['name']}-{n:05d}"
    doc["spec"]["ttlSecondsAfterFinished"] = 120
    return doc


def generated_job(n: int, rng: random.Random) -> dict[str, Any]:
    """Return the manifest of generated job number ``n``.

    A CPU gang, a GPU job, a vGPU job sharing cards, a hard-topology gang or a failing one.
    """
    kind = rng.choices(["small", "gang", "gpu", "vgpu", "topology", "flaky"],
                       weights=[5, 3, 2, 2, 2, 1])[0]  # fmt: skip
    replicas = {"small": rng.randint(1, 4), "gang": rng.randint(2, 6), "gpu": rng.randint(1, 2),
                "vgpu": rng.randint(1, 3), "topology": 4, "flaky": 2}[kind]  # fmt: skip
    cpu, memory = {"small": (1, 2), "gang": (4, 8), "gpu": (4, 16), "vgpu": (2, 8),
                   "topology": (2, 4), "flaky": (1, 1)}[kind]  # fmt: skip
    requests: dict[str, Any] = {"cpu": str(cpu), "memory": f"{memory}Gi"}
    annotations = {"volcano.sh/sim-duration": f"{rng.randint(20, 120)}s"}
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [{
        "name": "main", "image": "busybox", "command": ["sh", "-c", "train"],
        "resources": {"requests": requests, "limits": dict(requests)},
    }]}  # fmt: skip
    if kind == "gpu":
        requests["nvidia.com/gpu"] = "1"
        spec["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "1"
        spec["tolerations"] = [
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
        ]
        spec["nodeSelector"] = {"accelerator": "nvidia-a100"}
    if kind == "vgpu":
        # One shared card each: a slice of its memory and of its cores (HAMi-core's limits).
        limits = spec["containers"][0]["resources"]["limits"]
        limits["volcano.sh/vgpu-number"] = "1"
        limits["volcano.sh/vgpu-memory"] = str(rng.choice([4096, 8192, 12288]))
        limits["volcano.sh/vgpu-cores"] = str(rng.choice([25, 50]))
        spec["nodeSelector"] = {"accelerator": "nvidia-a10"}
    if kind == "flaky":
        annotations["volcano.sh/sim-exit-code"] = "1"
    job: dict[str, Any] = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": f"{kind}-{n:05d}", "namespace": "default"},
        "spec": {
            "schedulerName": "volcano",
            "queue": rng.choice(list(QUEUES)),
            "minAvailable": replicas,
            "maxRetry": 2,
            "ttlSecondsAfterFinished": 120,
            "priorityClassName": rng.choice(["", "", "low-priority", "high-priority"]),
            "policies": [{"event": "PodEvicted", "action": "RestartJob"},
                         {"event": "PodFailed", "action": "RestartJob"}],
            "tasks": [{"name": "worker", "replicas": replicas,
                       "template": {"metadata": {"annotations": annotations}, "spec": spec}}],
        },
    }  # fmt: skip
    if kind == "topology":
        # All four pods under one leaf switch (tier 1), or none: a hard network topology.
        job["spec"]["networkTopology"] = {"mode": "hard", "highestTierAllowed": 1}
    if not job["spec"]["priorityClassName"]:
        del job["spec"]["priorityClassName"]
    return job


def submit_next(n: int, rng: random.Random) -> str:
    """Submit demo job number ``n`` (every fourth one an example job); return its name."""
    manifest = _example(n) if n % 4 == 0 else generated_job(n, rng)
    job = job_submit(manifest=manifest)
    return job.name


class DemoStream(threading.Thread):
    """Submit a job every ``interval`` seconds while fewer than ``cap`` jobs are unfinished."""

    def __init__(self, *, interval: float = 3.0, cap: int | None = None, seed: int = 7) -> None:
        super().__init__(name="volcano-demo-stream", daemon=True)
        if cap is None:  # the XL demo keeps more jobs going (``VOLCANO_DEMO_SIZE=xl``)
            cap = XL_STREAM_CAP if os.environ.get(SIZE_ENV, "").lower() == "xl" else 30
        self.interval, self.cap = interval, cap
        self.rng = random.Random(seed)
        self.stopping = threading.Event()
        self.submitted = 0

    def run(self) -> None:
        """Loop until stopped; a refused or failed submission is skipped."""
        n = Job.objects.count()
        while not self.stopping.wait(self.interval):
            close_old_connections()
            try:
                if Job.objects.exclude(phase__in=FINISHED).count() < self.cap:
                    n += 1
                    while Job.objects.filter(name__endswith=f"-{n:05d}").exists():
                        n += 1
                    submit_next(n, self.rng)
                    self.submitted += 1
            except Exception:  # a demo must keep going
                import logging

                logging.getLogger(__name__).exception("demo submission %d failed", n)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop submitting."""
        self.stopping.set()
        if self.is_alive():
            self.join(timeout)
