"""The device and NUMA decisions of a bind, written with it: pod annotations, exclusive CPUs.

Volcano's counterparts: deviceshare's ``Allocate`` patches the card assignment onto the pod
(``volcano.sh/vgpu-ids-new``, ``volcano.sh/gpu-index``, ... : ``Decisions.pod_annotations``)
before the bind, so the device plugin on the node and the next sessions read which cards the pod
holds; numa-aware hands the CPUs it chose to the cache (``UpdateSchedulerNumaInfo``), which keeps
them on the node's Numatopology until the resource exporter reports the kubelet's own
allocation. Here both go to the rows in the bind's transaction (``apply.apply_decisions``), for
the pods whose bind was written:

- the annotations are merged into the pod's (a pod not bound keeps its own untouched);
- the CPUs become the pod's entry in its node's Numatopology ``spec.podAllocations`` and leave
  ``spec.numares.cpu.allocatable``, as the exporter would publish them once the kubelet gave
  them (``kubelet.exporter`` keeps them while the pod lives and frees them after).

The pod rows were just written by the bind (their change event is recorded there), so the
annotations need no event of their own; a Numatopology is saved (its own event).
"""

from __future__ import annotations

from collections.abc import Collection

from core.models import Pod
from kubelet.models import Numatopology
from scheduler.cache.snapshot import Snapshot
from scheduler.engine.api.numa import format_cpuset
from scheduler.engine.framework.decisions import Decisions
from scheduler.engine.util.numa_manifest import parse_cpuset

__all__ = ["write_bind_devices"]


def write_bind_devices(snapshot: Snapshot, decisions: Decisions, not_bound: Collection[str]) -> int:
    """Write the annotations and CPUs of the binds of ``decisions`` that were written; return
    how many pods got annotations."""
    annotated = 0
    wanted = {
        uid: notes
        for uid, notes in decisions.pod_annotations.items()
        if notes and uid in decisions.binds and uid not in not_bound and uid in snapshot.pods
    }
    if wanted:
        by_pk = {snapshot.pods[uid].pk: notes for uid, notes in wanted.items()}
        for pod in Pod.objects.filter(pk__in=list(by_pk)).only("pk", "annotations"):
            pod.annotations = {**(pod.annotations or {}), **by_pk[pod.pk]}
            # update(), not save(): the bind's write already bumped and recorded the row.
            Pod.objects.filter(pk=pod.pk).update(annotations=pod.annotations)
            annotated += 1
    by_node: dict[str, list[tuple[str, str]]] = {}
    for uid, (node, sets) in decisions.numa_assignments.items():
        if decisions.binds.get(uid) == node and uid not in not_bound and sets.get("cpu"):
            by_node.setdefault(node, []).append((uid, sets["cpu"]))
    if by_node:
        _record_cpus(snapshot, by_node)
    return annotated


def _record_cpus(snapshot: Snapshot, by_node: dict[str, list[tuple[str, str]]]) -> None:
    pks = {uid: snapshot.pods[uid].pk for uids in by_node.values() for uid, _ in uids
           if uid in snapshot.pods}  # fmt: skip
    pods = {
        pk: (str(pod_uid), name, namespace, (spec.get("containers") or [{}])[0].get("name", ""))
        for pk, pod_uid, name, namespace, spec in Pod.objects.filter(
            pk__in=list(pks.values())
        ).values_list("pk", "uid", "name", "namespace", "spec")
    }
    for topology in Numatopology.objects.select_for_update().filter(name__in=list(by_node)):
        allocations = list(topology.pod_allocations or [])
        held = {str(a.get("uid", "")) for a in allocations}
        cpu = dict((topology.numares or {}).get("cpu") or {})
        free = set(parse_cpuset(str(cpu.get("allocatable", "")), "spec.numares.cpu.allocatable"))
        for uid, cpuset in by_node[topology.name]:
            pod = pods.get(pks.get(uid, -1))
            if pod is None or pod[0] in held:
                continue
            free -= parse_cpuset(cpuset, "cpu")
            allocations.append({
                "uid": pod[0], "name": pod[1], "namespace": pod[2],
                "containerAllocations": [{"name": pod[3], "allocations": {"cpu": cpuset}}],
            })  # fmt: skip
        topology.pod_allocations = allocations
        topology.numares = {**(topology.numares or {}), "cpu": {**cpu,
                            "allocatable": format_cpuset(frozenset(free))}}  # fmt: skip
        topology.save(update_fields=["pod_allocations", "numares"])
