"""Builders for the sub-job tests: jobs with a subGroupPolicy, HyperNode trees, sessions."""

from __future__ import annotations

from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.hypernode import (
    HARD,
    MEMBER_HYPERNODE,
    MEMBER_NODE,
    HyperNodeInfo,
    HyperNodeMember,
    NetworkTopology,
)
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.sub_job import SubGroupPolicy
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.conf import SchedulerConf, load_conf
from scheduler.engine.framework import Session, open_session
from tests.engine.builders import T0, build_pod, build_pod_group, build_queue

CONF = """actions: "allocate"
tiers:
- plugins:
  - name: gang
    enabledSubJobPipelined: false
  - name: predicates
  - name: network-topology-aware
"""


def sub_job_conf() -> SchedulerConf:
    """Return the conf of Volcano's partition-policy tests (gang, predicates, topology)."""
    return load_conf(CONF)


def labelled_pod(name: str, labels: dict[str, str], **kwargs: object) -> TaskInfo:
    """Return a pending pod carrying ``labels`` (sub-jobs are matched on pod labels)."""
    pod = build_pod(name, **kwargs)  # type: ignore[arg-type]
    pod.template = TaskTemplate(namespace=pod.namespace, labels=labels)
    return pod


def hard(tier: int) -> NetworkTopology:
    return NetworkTopology(mode=HARD, highest_tier_allowed=tier, highest_tier_name="")


def policy(
    name: str, keys: tuple[str, ...], *, size: int = 1, minimum: int = 0, tier: int | None = None
) -> SubGroupPolicy:
    """Return a subGroupPolicy grouping pods by the label ``keys`` (hard up to ``tier``)."""
    return SubGroupPolicy(
        name=name,
        sub_group_size=size,
        min_sub_groups=minimum,
        match_label_keys=keys,
        network_topology=None if tier is None else hard(tier),
    )


def partitioned_job(
    name: str, pods: list[TaskInfo], policies: tuple[SubGroupPolicy, ...], **kwargs: object
) -> JobInfo:
    """Return a job holding ``pods`` whose PodGroup carries ``policies``."""
    job = build_pod_group(name, pods, **kwargs)  # type: ignore[arg-type]
    job.sub_group_policy = policies
    return job


def leaf(name: str, nodes: list[str], tier: int = 1) -> HyperNodeInfo:
    """Return a HyperNode of ``nodes``."""
    return HyperNodeInfo(
        name=name,
        tier=tier,
        members=tuple(HyperNodeMember(type=MEMBER_NODE, exact_match=n) for n in nodes),
    )


def spine(name: str, children: list[str], tier: int = 2) -> HyperNodeInfo:
    """Return a HyperNode of other HyperNodes."""
    return HyperNodeInfo(
        name=name,
        tier=tier,
        members=tuple(HyperNodeMember(type=MEMBER_HYPERNODE, exact_match=c) for c in children),
    )


def session(
    nodes: list[NodeInfo],
    jobs: list[JobInfo],
    hypernodes: list[HyperNodeInfo] | None = None,
    conf: SchedulerConf | None = None,
) -> Session:
    """Return an open session of the given objects (queue ``default``)."""
    cluster = ClusterInfo.build(
        now=T0, nodes=nodes, jobs=jobs, queues=[build_queue("default")], hypernodes=hypernodes or ()
    )
    return open_session(cluster, conf or sub_job_conf())
