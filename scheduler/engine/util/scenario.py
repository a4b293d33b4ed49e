"""Scenario files: YAML → (ClusterInfo, SchedulerConf, Expect), and the diff against decisions.

The format is ``shared/docs/scenario-format.md``: ``name``, ``description``, ``config`` (the conf
text), ``objects`` (manifests) and ``expect``. One addition: an optional ``now`` (RFC 3339) is the
session's clock; without it the clock is the latest creationTimestamp in the file, so a scenario
always gives the same decisions.

Network topology: ``HyperNode`` objects (``topology.volcano.sh/v1alpha1``) and PodGroups'
``spec.networkTopology`` are read (``util/hypernode_manifest.py``); ``expect.allocatedHyperNodes``
(PodGroup ``<namespace>/<name>`` -> HyperNode name) checks the HyperNode each listed job is in
after the session, what Volcano writes to the PodGroup annotation
``volcano.sh/job-allocated-hypernode`` (the virtual top is ``<cluster-top-hypernode>``).
A PodGroup's ``spec.subGroupPolicy`` splits its pods into sub-jobs (``util/sub_group_manifest.py``,
``api/sub_job.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import yaml

from apis.errors import ConfError, ManifestError
from apis.safe_yaml import YamlLimitError, load_one
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.hypernode import HyperNodeInfo
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.numa import NumatopoInfo
from scheduler.engine.api.pdb_info import PdbInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.quota_info import QuotaInfo
from scheduler.engine.api.resource import Resource, scheduling_quantities
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.conf import SchedulerConf, load_conf
from scheduler.engine.framework.decisions import Decisions
from scheduler.engine.util.hypernode_manifest import read_hypernode, read_network_topology
from scheduler.engine.util.manifests import (
    GROUP_ANNOTATION,
    METADATA_KEYS,
    check_keys,
    mapping,
    parse_time,
    read_node,
    read_pod,
    read_queue,
)
from scheduler.engine.util.node_usage import read_node_usage
from scheduler.engine.util.numa_manifest import read_numatopology
from scheduler.engine.util.pdb_manifest import read_pdb
from scheduler.engine.util.resource_quota import read_resource_quota
from scheduler.engine.util.sub_group_manifest import read_sub_group_policies

__all__ = ["Expect", "Scenario", "diff", "load_scenario"]

_TOP_KEYS = frozenset({"name", "description", "config", "objects", "expect", "now"})
_EXPECT_KEYS = frozenset(
    {"binds", "bindCount", "evictions", "evictionCount", "pipelined", "podGroupPhases",
     "podAnnotations", "allocatedHyperNodes"}
)  # fmt: skip
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass(slots=True)
class Expect:
    """What a scenario expects; None means "not checked"."""

    binds: dict[str, str] | None = None
    bind_count: int | None = None
    evictions: list[str] | None = None
    eviction_count: int | None = None
    pipelined: dict[str, str] | None = None
    pod_group_phases: dict[str, str] | None = None
    # pod -> annotation -> value the bind writes (only the pods and keys listed are checked).
    pod_annotations: dict[str, dict[str, str]] | None = None
    # PodGroup -> the HyperNode its job is in after the session (only the jobs listed).
    allocated_hypernodes: dict[str, str] | None = None


@dataclass(slots=True)
class Scenario:
    """A parsed scenario file."""

    name: str
    description: str
    cluster: ClusterInfo
    conf: SchedulerConf
    expect: Expect | None = None
    source: str = ""
    notes: list[str] = field(default_factory=list)


def _read_pod_group(
    obj: Mapping[str, Any],
    meta: Mapping[str, Any],
    path: str,
    classes: Mapping[str, tuple[int, str]],
    default_priority: int,
) -> JobInfo:
    check_keys(obj, frozenset({"apiVersion", "kind", "metadata", "spec", "status"}), path)
    spec = mapping(obj.get("spec"), f"{path}.spec")
    check_keys(
        spec,
        frozenset({"minMember", "minTaskMember", "minResources", "queue", "priorityClassName",
                   "networkTopology", "subGroupPolicy"}),
        f"{path}.spec",
    )  # fmt: skip
    status = mapping(obj.get("status"), f"{path}.status")
    phase = str(status.get("phase") or "Pending")
    if phase not in PodGroupPhase.__members__.values():
        raise ManifestError(f"{path}.status.phase", f"unknown phase {phase!r}")
    min_member = spec.get("minMember", 1)
    if isinstance(min_member, bool) or not isinstance(min_member, int) or min_member < 0:
        raise ManifestError(
            f"{path}.spec.minMember", f"expected a non-negative integer, got {min_member!r}"
        )
    task_min: dict[str, int] = {}
    for role, value in mapping(spec.get("minTaskMember"), f"{path}.spec.minTaskMember").items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ManifestError(
                f"{path}.spec.minTaskMember.{role}", f"expected an integer, got {value!r}"
            )
        task_min[str(role)] = value
    class_name = str(spec.get("priorityClassName") or "")
    min_res = spec.get("minResources")
    # As Volcano's job controller writes them, with quota names (requests.cpu, count/pods):
    # resourcequota reads them all, the rest of the scheduler only the plain names and pods.
    quota_min = (
        None
        if min_res is None
        else Resource.parse(
            mapping(min_res, f"{path}.spec.minResources"), field=f"{path}.spec.minResources"
        )
    )
    return JobInfo(
        name=str(meta["name"]),
        namespace=str(meta.get("namespace") or "default"),
        queue=str(spec.get("queue") or "default"),
        min_available=min_member,
        task_min_available=task_min,
        min_resources=None
        if quota_min is None
        else Resource(scheduling_quantities(quota_min.as_dict())),
        quota_min_resources=quota_min,
        priority_class_name=class_name,
        priority=classes.get(class_name, (default_priority, ""))[0],
        creation_timestamp=parse_time(meta.get("creationTimestamp"), f"{path}.metadata"),
        phase=PodGroupPhase(phase),
        annotations={str(k): str(v) for k, v in mapping(meta.get("annotations"), path).items()},
        labels={
            str(k): str(v)
            for k, v in mapping(meta.get("labels"), f"{path}.metadata.labels").items()
        },
        network_topology=read_network_topology(
            spec.get("networkTopology"), f"{path}.spec.networkTopology"
        ),
        sub_group_policy=read_sub_group_policies(
            spec.get("subGroupPolicy"), f"{path}.spec.subGroupPolicy"
        ),
    )


def _objects(raw: object) -> list[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
    if not isinstance(raw, list):
        raise ManifestError("objects", "expected a list of manifests")
    out = []
    for i, obj in enumerate(raw):
        obj_map = mapping(obj, f"objects[{i}]")
        kind = obj_map.get("kind")
        meta = mapping(obj_map.get("metadata"), f"objects[{i}].metadata")
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            raise ManifestError(f"objects[{i}].metadata.name", "required")
        check_keys(meta, METADATA_KEYS, f"objects[{i}] ({kind} {name}).metadata")
        ns = meta.get("namespace") or "default"
        label = (
            f"{name}"
            if kind in ("Node", "Queue", "PriorityClass", "Numatopology", "HyperNode")
            else f"{ns}/{name}"
        )
        out.append((f"objects[{i}] ({kind} {label})", obj_map, meta))
    return out


def _build_cluster(raw_objects: object, now: datetime | None) -> ClusterInfo:
    objects = _objects(raw_objects)
    # 1. Priority classes first: pods and PodGroups resolve their priority through them.
    classes: dict[str, tuple[int, str]] = {}
    default_priority = 0
    for path, obj, meta in objects:
        if obj.get("kind") == "PriorityClass":
            check_keys(obj, frozenset({"apiVersion", "kind", "metadata", "value", "globalDefault",
                                       "description", "preemptionPolicy"}), path)  # fmt: skip
            value = obj.get("value")
            if isinstance(value, bool) or not isinstance(value, int):
                raise ManifestError(f"{path}.value", f"expected an integer, got {value!r}")
            classes[str(meta["name"])] = (value, str(obj.get("preemptionPolicy") or ""))
            if obj.get("globalDefault") is True:
                default_priority = value
    # 2. Everything else.
    nodes: list[NodeInfo] = []
    node_paths: list[tuple[str, NodeInfo]] = []  # for their usage, once the clock is known
    queues: list[QueueInfo] = []
    jobs: dict[str, JobInfo] = {}
    pods: list[tuple[str, TaskInfo, str]] = []
    pdbs: dict[str, PdbInfo] = {}
    quotas: list[QuotaInfo] = []
    numa: dict[str, NumatopoInfo] = {}
    hypernodes: dict[str, HyperNodeInfo] = {}
    times: list[datetime] = []
    for path, obj, meta in objects:
        kind = obj.get("kind")
        stamp = parse_time(meta.get("creationTimestamp"), f"{path}.metadata.creationTimestamp")
        if stamp is not None:
            times.append(stamp)
        if kind == "PriorityClass":
            continue
        if kind == "Node":
            node = read_node(obj, meta, path)
            if node is not None:
                nodes.append(node)
                node_paths.append((path, node))
        elif kind == "Queue":
            queues.append(read_queue(obj, meta, path))
        elif kind == "PodGroup":
            job = _read_pod_group(obj, meta, path, classes, default_priority)
            if job.uid in jobs:
                raise ManifestError(f"{path}.metadata.name", "duplicate PodGroup")
            jobs[job.uid] = job
        elif kind == "Pod":
            task = read_pod(
                obj, meta, path, priority_classes=classes, default_priority=default_priority
            )
            pods.append((path, task, task.annotations.get(GROUP_ANNOTATION, "")))
        elif kind == "PodDisruptionBudget":
            pdb = read_pdb(obj, meta, path)
            if pdb.uid in pdbs:
                raise ManifestError(f"{path}.metadata.name", "duplicate PodDisruptionBudget")
            pdbs[pdb.uid] = pdb
        elif kind == "ResourceQuota":
            quotas.append(read_resource_quota(obj, meta, path))
        elif kind == "Numatopology":
            topo = read_numatopology(obj, meta, path)
            if topo.name in numa:
                raise ManifestError(f"{path}.metadata.name", "duplicate Numatopology")
            numa[topo.name] = topo
        elif kind == "HyperNode":
            hypernode = read_hypernode(obj, meta, path)
            if hypernode.name in hypernodes:
                raise ManifestError(f"{path}.metadata.name", "duplicate HyperNode")
            hypernodes[hypernode.name] = hypernode
        else:
            raise ManifestError(f"{path}.kind", f"unsupported kind {kind!r}")
    # 3. Pods join their PodGroup; a pod without one is its own group of one.
    seen: set[str] = set()
    for path, task, group in pods:
        if task.uid in seen:
            raise ManifestError(f"{path}.metadata.name", "duplicate Pod")
        seen.add(task.uid)
        if group:
            found = jobs.get(f"{task.namespace}/{group}")
            if found is None:
                raise ManifestError(
                    f"{path}.metadata.annotations.{GROUP_ANNOTATION}", f"no PodGroup {group!r}"
                )
            job = found
        else:
            running = task.status not in (TaskStatus.PENDING,)
            job = JobInfo(
                name=task.name,
                namespace=task.namespace,
                min_available=1,
                min_resources=task.resreq,
                priority=task.priority,
                creation_timestamp=task.creation_timestamp,
                phase=PodGroupPhase.RUNNING if running else PodGroupPhase.PENDING,
            )
            jobs[job.uid] = job
        job.add_task(task)
    clock = now or (max(times) if times else _EPOCH)
    for path, node in node_paths:
        node.numatopology = numa.get(node.name)
        node.resource_usage = read_node_usage(node.annotations, clock, path)
    return ClusterInfo.build(
        now=clock,
        nodes=nodes,
        jobs=jobs.values(),
        queues=queues,
        priority_classes={k: v for k, (v, _) in classes.items()},
        default_priority=default_priority,
        pdbs=pdbs.values(),
        resource_quotas=quotas,
        hypernodes=hypernodes.values(),
    )


def _read_expect(raw: object) -> Expect | None:
    if raw is None:
        return None
    data = mapping(raw, "expect")
    check_keys(data, _EXPECT_KEYS, "expect")

    def str_map(key: str) -> dict[str, str] | None:
        value = data.get(key)
        return (
            None
            if value is None
            else {str(k): str(v) for k, v in mapping(value, f"expect.{key}").items()}
        )

    def count(key: str) -> int | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ManifestError(f"expect.{key}", f"expected an integer, got {value!r}")
        return int(value)

    pod_annotations = None
    if data.get("podAnnotations") is not None:
        pod_annotations = {
            str(pod): {
                str(k): str(v) for k, v in mapping(value, f"expect.podAnnotations.{pod}").items()
            }
            for pod, value in mapping(data["podAnnotations"], "expect.podAnnotations").items()
        }
    evictions = data.get("evictions")
    if evictions is not None and not isinstance(evictions, list):
        raise ManifestError("expect.evictions", "expected a list of pods")
    return Expect(
        binds=str_map("binds"),
        bind_count=count("bindCount"),
        evictions=None if evictions is None else [str(e) for e in evictions],
        eviction_count=count("evictionCount"),
        pipelined=str_map("pipelined"),
        pod_group_phases=str_map("podGroupPhases"),
        pod_annotations=pod_annotations,
        allocated_hypernodes=str_map("allocatedHyperNodes"),
    )


# A scenario is a file the operator chose (``manage.py simulate``), often a live snapshot the
# console exported: 50,000 pods are about a million YAML nodes, above the web input's limit.
SCENARIO_MAX_NODES = 5_000_000


def load_scenario(text: str, *, source: str = "") -> Scenario:
    """Return the scenario in ``text``; ``ManifestError``/``ConfError`` name the bad field."""
    try:
        data = load_one(text, max_nodes=SCENARIO_MAX_NODES)
    except YamlLimitError as exc:
        raise ManifestError(exc.field, exc.message) from exc
    except yaml.YAMLError as exc:
        raise ManifestError("", f"not valid YAML: {exc}") from exc
    data = mapping(data, "scenario")
    check_keys(data, _TOP_KEYS, "scenario")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ManifestError("name", "required")
    config = data.get("config")
    if config is not None and not isinstance(config, str):
        raise ConfError("config", "expected the volcano-scheduler.conf text (use `config: |`)")
    now = parse_time(data.get("now"), "now")
    return Scenario(
        name=name,
        description=str(data.get("description") or ""),
        conf=load_conf(config),
        cluster=_build_cluster(data.get("objects") or [], now),
        expect=_read_expect(data.get("expect")),
        source=source,
    )


def diff(expect: Expect, decisions: Decisions) -> list[str]:
    """Return one line per difference between ``expect`` and ``decisions`` (empty: all match)."""
    out: list[str] = []

    def compare_map(label: str, want: dict[str, str], got: dict[str, str]) -> None:
        for key in sorted(set(want) | set(got)):
            if want.get(key) != got.get(key):
                out.append(f"{label}[{key}]: expected {want.get(key)!r}, got {got.get(key)!r}")

    if expect.binds is not None:
        compare_map("binds", expect.binds, decisions.binds)
    if expect.bind_count is not None and expect.bind_count != len(decisions.binds):
        out.append(f"bindCount: expected {expect.bind_count}, got {len(decisions.binds)}")
    evicted = sorted(e.task for e in decisions.evictions)
    if expect.evictions is not None and sorted(expect.evictions) != evicted:
        out.append(f"evictions: expected {sorted(expect.evictions)}, got {evicted}")
    if expect.eviction_count is not None and expect.eviction_count != len(evicted):
        out.append(f"evictionCount: expected {expect.eviction_count}, got {len(evicted)}")
    if expect.pipelined is not None:
        compare_map("pipelined", expect.pipelined, decisions.pipelined)
    if expect.pod_group_phases is not None:
        got = {k: str(v) for k, v in decisions.pod_group_phases.items()}
        for key, want in sorted(expect.pod_group_phases.items()):
            if got.get(key) != want:
                out.append(f"podGroupPhases[{key}]: expected {want!r}, got {got.get(key)!r}")
    if expect.pod_annotations is not None:
        for pod, wanted in sorted(expect.pod_annotations.items()):
            written = decisions.pod_annotations.get(pod, {})
            for key, want in sorted(wanted.items()):
                if written.get(key) != want:
                    out.append(
                        f"podAnnotations[{pod}][{key}]: expected {want!r}, got {written.get(key)!r}"
                    )
    if expect.allocated_hypernodes is not None:
        for job, want in sorted(expect.allocated_hypernodes.items()):
            have = decisions.allocated_hypernodes.get(job, "")
            if have != want:
                out.append(f"allocatedHyperNodes[{job}]: expected {want!r}, got {have!r}")
    return out
