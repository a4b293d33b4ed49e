"""What the policy editor says about each action, plugin, hook flag and argument.

The parser (``conf.py``) and each class's ``arguments_schema`` already know the names, types and
Volcano's defaults; this module adds the words an operator reads next to a field: what an action
does, which hook flags a plugin has (only the hooks it registers, so a switch never does
nothing), and one line per argument. Defaults and types are read from the registered classes,
never repeated here, so the editor cannot drift from the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from scheduler.engine.conf import ENABLE_FLAGS
from scheduler.engine.framework.arguments import ArgSpec
from scheduler.engine.framework.registry import ensure_loaded, get_action, get_plugin_class

__all__ = [
    "ACTIONS",
    "FLAG_HELP",
    "PLUGINS",
    "ArgumentInfo",
    "PluginInfo",
    "action_help",
    "flag_default",
    "plugin_info",
]

# Volcano's actions, in the order a conf usually lists them.
ACTIONS: tuple[str, ...] = (
    "enqueue",
    "allocate",
    "backfill",
    "preempt",
    "reclaim",
    "shuffle",
    "gangpreempt",
    "gangreclaim",
)

_ACTION_HELP: dict[str, str] = {
    "enqueue": "Admits Pending PodGroups to Inqueue when their queue and the cluster have room "
    "for minResources.",
    "allocate": "Places the pending pods of admitted jobs, queue by queue and job by job; a gang "
    "that cannot be placed whole is placed not at all.",
    "backfill": "Places pods that request no resources (BestEffort) on any node that fits.",
    "preempt": "Evicts lower-priority pods in the same queue so a starving job can run.",
    "reclaim": "Evicts pods of queues using more than they deserve so a starved queue gets its "
    "share back.",
    "shuffle": "Evicts the running pods that plugins with victim hooks name (tdm: pods on "
    "revocable nodes whose time window closed; pdb: pods no disruption budget protects; "
    "rescheduling: pods on nodes used over its targets).",
    "gangpreempt": "Evicts whole-gang-aware bundles of lower-priority jobs in the same queue so "
    "all pending pods of a starving job can run at once.",
    "gangreclaim": "Evicts whole-gang-aware bundles of other reclaimable queues' jobs so all "
    "pending pods of a starving job can run at once.",
}

_PLUGIN_HELP: dict[str, str] = {
    "binpack": "Scores nodes so pods pack onto the fullest nodes first (fewer, fuller nodes).",
    "network-topology-aware": "Places jobs with a networkTopology inside one HyperNode of the "
    "lowest tier that fits (hard mode: never above highestTierAllowed) and keeps every job's pods "
    "close in the network; packs other pods into fuller HyperNodes.",
    "cdp": "Cool-down protection: a pod labelled volcano.sh/cooldown-time is not evicted until "
    "that long after it was scheduled.",
    "capacity": "Queue quotas from each queue's deserved and capability (configured, not "
    "computed); optional queue hierarchy.",
    "conformance": "Protects kube-system pods and critical priority classes from eviction.",
    "deviceshare": "Shares GPUs between pods: whole cards by memory (volcano.sh/gpu-memory) or "
    "by number (volcano.sh/gpu-number), or vGPU slices by memory and cores "
    "(volcano.sh/vgpu-*); picks the cards and writes them on the pod at bind.",
    "drf": "Dominant resource fairness: jobs and queues with the smallest dominant share go first.",
    "extender": "Asks an HTTP service you run (POST JSON per verb) to filter and score nodes, "
    "pick victims, vote on enqueue and judge queues and jobs.",
    "gang": "All-or-nothing: a job runs only when minAvailable of its pods can be placed.",
    "nodegroup": "Binds queues to node groups (node label volcano.sh/nodegroup-name) through "
    "the queue's spec.affinity, with per-group limits (queue annotation "
    "volcano.sh/nodegroup-resource-limits); enableHierarchy inherits a parent's affinity.",
    "nodeorder": "Scores nodes with kube-scheduler's scorers (least requested, affinity, taints, "
    "spread), each times its weight.",
    "numa-aware": "Fits Guaranteed pods' whole CPUs to the node's NUMA topology (Numatopology): "
    "the node's or the pod's volcano.sh/numa-topology-policy (single-numa-node, restricted, "
    "best-effort, none) decides; prefers nodes where the CPUs span fewer NUMA nodes.",
    "overcommit": "Admits jobs while the cluster, times the overcommit factor, has room.",
    "pdb": "Keeps evictions within PodDisruptionBudgets: a victim that would take a budget below "
    "its allowed disruptions is spared.",
    "predicates": "Filters nodes that cannot take a pod (resources, selector, affinity, taints, "
    "ports, spread).",
    "priority": "Orders jobs and tasks by priority; lower priority pods are preemptable.",
    "rescheduling": "Moves running pods off nodes used over targetThresholds while other nodes "
    "are under thresholds (lowNodeUtilization, measured use), at most once per interval; the "
    "shuffle action evicts them.",
    "resource-strategy-fit": "Scores nodes per resource, MostAllocated (pack) or LeastAllocated "
    "(spread), each with its weight; optional SRA keeps ordinary pods off nodes with scarce "
    "resources, and the proportional filter keeps cpu and memory free beside them.",
    "resourcequota": "Admits a job only while its minResources fit its namespace's ResourceQuotas.",
    "proportion": "Shares the cluster between queues by weight (water-filling), capped by "
    "capability and raised to guarantee.",
    "sla": "Jobs waiting longer than their sla-waiting-time go first and are admitted at once.",
    "task-topology": "Places a job's tasks (pod annotation volcano.sh/task-spec) by the PodGroup's "
    "volcano.sh/task-topology-affinity / -anti-affinity (groups split by ';', tasks by ',') and "
    "volcano.sh/task-topology-task-order: pods meant to share a node go first and score higher "
    "where their bucket fits.",
    "tdm": "Lends revocable nodes (label volcano.sh/revocable-zone) to preemptable pods during "
    "their zone's time window, and takes them back when it closes.",
    "usage": "Keeps new pods off nodes whose measured cpu or memory use is over a threshold, and "
    "prefers the least used nodes (real use from metrics, not requests).",
}

# The hook flags each plugin honours (the hooks its on_session_open registers).
_PLUGIN_FLAGS: dict[str, tuple[str, ...]] = {
    "binpack": ("enableNodeOrder",),
    "capacity": (
        "enableQueueOrder",
        "enableJobEnqueued",
        "enablePreemptive",
        "enableReclaimable",
        "enabledAllocatable",
        "enableHierarchy",
    ),
    "cdp": ("enablePreemptable", "enableReclaimable"),
    "conformance": ("enablePreemptable", "enableReclaimable"),
    "drf": (
        "enableJobOrder",
        "enableQueueOrder",
        "enablePreemptable",
        "enableReclaimable",
        "enableHierarchy",
    ),
    "extender": (
        "enablePredicate",
        "enableNodeOrder",
        "enablePreemptable",
        "enableReclaimable",
        "enableJobEnqueued",
        "enabledOverused",
        "enableJobReady",
    ),
    "gang": (
        "enableJobOrder",
        "enableJobReady",
        "enableJobPipelined",
        "enablePreemptable",
        "enableReclaimable",
        "enableJobStarving",
    ),
    "nodegroup": ("enablePredicate", "enableNodeOrder", "enableHierarchy"),
    "nodeorder": ("enableNodeOrder",),
    "overcommit": ("enableJobEnqueued",),
    "pdb": ("enabledVictim", "enablePreemptable", "enableReclaimable"),
    "predicates": ("enablePredicate",),
    "priority": ("enableJobOrder", "enableTaskOrder", "enablePreemptable", "enableJobStarving"),
    "proportion": (
        "enableQueueOrder",
        "enableJobEnqueued",
        "enabledOverused",
        "enabledAllocatable",
        "enablePreemptive",
        "enableReclaimable",
    ),
    "rescheduling": ("enabledVictim",),
    "resource-strategy-fit": ("enablePredicate", "enableNodeOrder"),
    "resourcequota": ("enableJobEnqueued",),
    "sla": ("enableJobOrder", "enableJobEnqueued", "enableJobPipelined"),
    "tdm": (
        "enablePredicate",
        "enableNodeOrder",
        "enablePreemptable",
        "enabledVictim",
        "enableJobOrder",
        "enableJobPipelined",
        "enableJobStarving",
    ),
    "usage": ("enablePredicate", "enableNodeOrder"),
    "deviceshare": ("enablePredicate", "enableNodeOrder"),
    "numa-aware": ("enablePredicate", "enableNodeOrder"),
    "network-topology-aware": (
        "enableNodeOrder",
        "enabledHyperNodeOrder",
        "enabledHyperNodeGradient",
    ),
    "task-topology": ("enableTaskOrder", "enableNodeOrder"),
}

FLAG_HELP: dict[str, str] = {
    "enableJobOrder": "its job order decides which job goes first",
    "enableHierarchy": "queues form a tree (volcano.sh/hierarchy); off unless set",
    "enableJobReady": "its readiness test decides when a job may be committed",
    "enableJobPipelined": "its vote decides whether a job may wait for releasing resources",
    "enableTaskOrder": "its task order decides which pod of a job goes first",
    "enablePreemptable": "it chooses which pods may be preempted",
    "enableReclaimable": "it chooses which pods may be reclaimed from other queues",
    "enablePreemptive": "it decides whether a queue may reclaim at all",
    "enableQueueOrder": "its queue order decides which queue is served first",
    "enabledClusterOrder": "cluster order (multi-cluster); off unless set",
    "enablePredicate": "its filters decide which nodes can take a pod",
    "enableBestNode": "it may pick the best node itself",
    "enableNodeOrder": "its scores rank the nodes that fit",
    "enableTargetJob": "it may name a target job for preemption",
    "enableReservedNodes": "it may reserve nodes",
    "enableJobEnqueued": "its vote decides whether enqueue admits a job",
    "enabledVictim": "it may propose victims directly (the shuffle action evicts them)",
    "enableJobStarving": "it decides whether a job still needs resources (may preempt)",
    "enabledOverused": "it decides when a queue is over its share (allocate skips it)",
    "enabledAllocatable": "it decides whether a queue may take one more pod",
    "enabledHyperNodeOrder": "it scores hypernodes (network topology)",
    "enabledSubJobReady": "sub-job readiness",
    "enabledSubJobPipelined": "sub-job pipelining",
    "enabledSubJobOrder": "sub-job order",
    "enabledHyperNodeGradient": "hypernode gradients",
}

_ARG_HELP: dict[str, str] = {
    # preempt's and reclaim's (action arguments, under ``configurations``)
    "predicateErrorCacheEnable": "remember a pod template's predicate failures within a session",
    "enableTopologyAwarePreemption": "choose victims node by node with the simulate hooks "
    "(topology-aware preemption)",
    "topologyAwarePreemptWorkerNum": "how many nodes topology-aware preemption tries at once",
    "minCandidateNodesPercentage": "the share of nodes topology-aware preemption tries at least",
    "minCandidateNodesAbsolute": "the fewest nodes topology-aware preemption tries",
    "maxCandidateNodesAbsolute": "the most nodes topology-aware preemption tries",
    "ancestorReclaimLevel": "how many levels up the queue tree a reclaimer may look for room",
    "leastrequested.weight": "favour nodes with the most free cpu and memory",
    "mostrequested.weight": "favour nodes with the least free cpu and memory (0: off)",
    "nodeaffinity.weight": "favour nodes matching the pod's preferred node affinity",
    "podaffinity.weight": "favour nodes near pods the pod prefers (inter-pod affinity)",
    "balancedresource.weight": "favour nodes whose cpu and memory use stay balanced",
    "tainttoleration.weight": "favour nodes with fewer PreferNoSchedule taints the pod "
    "does not tolerate",
    "imagelocality.weight": "favour nodes that already hold the pod's images",
    "podtopologyspread.weight": "favour nodes that keep topology spread even",
    "predicate.CacheEnable": "cache predicate results per pod template",
    "predicate.NodeAffinityEnable": "check nodeSelector and required node affinity",
    "predicate.NodePortsEnable": "check host ports are free",
    "predicate.TaintTolerationEnable": "check NoSchedule/NoExecute taints are tolerated",
    "predicate.PodAffinityEnable": "check required inter-pod (anti-)affinity",
    "predicate.NodeVolumeLimitsEnable": "check per-node volume limits",
    "predicate.VolumeZoneEnable": "check volume zones",
    "predicate.PodTopologySpreadEnable": "check hard topology spread constraints",
    "predicate.VolumeBindingEnable": "check volumes can bind",
    "predicate.DynamicResourceAllocationEnable": "check dynamic resource claims",
}


@dataclass(frozen=True, slots=True)
class ArgumentInfo:
    """One argument as the editor shows it: key, type name, Volcano's default, explanation."""

    key: str
    type: str  # "bool", "int", "float", "str" or "list" (of strings, shown comma-separated)
    # or "yaml" (nested, as rescheduling's strategies: typed and shown as one line of YAML)
    default: bool | int | float | str | None
    help: str
    prefix: bool = False  # a family of keys ``key<name>`` (e.g. ``binpack.resources.<name>``)
    section: str = ""  # written nested in the conf: ``thresholds.cpu`` as ``thresholds: {cpu:}``


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One plugin as the editor shows it."""

    name: str
    help: str
    flags: tuple[str, ...]
    arguments: tuple[ArgumentInfo, ...]


def _argument(spec: ArgSpec) -> ArgumentInfo:
    return ArgumentInfo(
        key=spec.name,
        type="yaml" if spec.nested else "list" if spec.listed else spec.type.__name__,
        default=spec.default,
        help=spec.help or _ARG_HELP.get(spec.name, ""),
        prefix=spec.prefix,
        section=spec.section,
    )


def plugin_info(name: str) -> PluginInfo | None:
    """Return what the editor shows for plugin ``name`` (None: no such plugin)."""
    ensure_loaded()
    cls = get_plugin_class(name)
    if cls is None:
        return None
    return PluginInfo(
        name=name,
        help=_PLUGIN_HELP.get(name, ""),
        flags=_PLUGIN_FLAGS.get(name, ENABLE_FLAGS),
        arguments=tuple(_argument(s) for s in cls.arguments_schema),
    )


def action_help(name: str) -> tuple[str, tuple[ArgumentInfo, ...]]:
    """Return the explanation and the arguments of action ``name``."""
    ensure_loaded()
    action = get_action(name)
    schema = action.arguments_schema if action is not None else ()
    return _ACTION_HELP.get(name, ""), tuple(_argument(s) for s in schema)


def flag_default(flag: str) -> bool:
    """Return a hook flag's value when the conf leaves it unset (Volcano's defaults)."""
    return flag not in ("enableHierarchy", "enabledClusterOrder")


PLUGINS: tuple[str, ...] = tuple(sorted(_PLUGIN_HELP))
