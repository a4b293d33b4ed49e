"""Reads for the Topology pages: the HyperNode tree, each HyperNode's free resources and jobs.

The tree is drawn as the scheduler derives it each session (``scheduler.engine.api.hypernode``):
a HyperNode member names a child, the first parent by name claims it, and a HyperNode's real
nodes are its Node members' plus its children's (``topology.members``). The virtual top the
scheduler adds above the parentless HyperNodes is not a HyperNode and is not drawn.

Free = allocatable minus what the live pods bound to its nodes request (the Nodes pages' load,
``scheduler.node_selectors.node_loads``), node by node, never below zero on one node, so an
over-committed node does not lend its deficit to the others. A job *landed* in the lowest-tier
HyperNode holding the nodes of all its bound Pending/Running pods (``topology.placement``), the
one Volcano recovers as its allocated HyperNode. Reads are a fixed number of queries (HyperNodes,
nodes, the bound pods of jobs, those jobs), whatever the size of the tree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from console.units import pair
from core.models import Node, Pod
from jobs.models import Job
from scheduler.node_selectors import GPU, Load, node_loads
from topology.discovery.label import SOURCE_LABEL
from topology.members import NodeLabels, children, covered_nodes, selected_nodes
from topology.models import HyperNode, MemberType
from topology.placement import PLACED_PHASES, lowest_holding

__all__ = [
    "Free",
    "JobRef",
    "MemberRow",
    "Topology",
    "TreeNode",
    "member_rows",
    "selector_text",
    "topology",
]

RESOURCES = ("cpu", "memory", GPU)
NAMES_SHOWN = 3  # exact node names listed in the tree before "+N"
_OPERATORS = {"In": "in", "NotIn": "notin"}


@dataclass(frozen=True, slots=True)
class Free:
    """One resource of a HyperNode: what its nodes advertise and what is left (milli-units)."""

    resource: str
    allocatable: int
    free: int

    @property
    def text(self) -> str:
        """Return "free / allocatable" with the unit once: ``12 / 32 cores``."""
        return pair(self.free, self.allocatable, self.resource)

    @property
    def label(self) -> str:
        """Return the resource's short name for a column: CPU, memory, GPU."""
        return {"cpu": _("CPU"), "memory": _("Memory"), GPU: _("GPU")}.get(
            self.resource, self.resource
        )

    @property
    def percent_free(self) -> int:
        """Return the free share in percent (0 without allocatable)."""
        return round(100 * self.free / self.allocatable) if self.allocatable else 0

    @property
    def level(self) -> str:
        """Return the free bar's class: green while plenty is left, a warning below 30 %."""
        free = self.percent_free
        return "bad" if free <= 10 else "warn" if free <= 30 else "ok"


@dataclass(frozen=True, slots=True)
class JobRef:
    """A job that landed in a HyperNode: where to link and how many pods it holds there."""

    namespace: str
    name: str
    pods: int


@dataclass(slots=True)
class TreeNode:
    """One HyperNode as the tree draws it."""

    hyper_node: HyperNode
    depth: int
    parent: str
    nodes: set[str]
    direct: set[str]  # selected by its own Node members
    free: list[Free]
    selectors: list[str]
    jobs: list[JobRef] = field(default_factory=list)
    hidden_jobs: int = 0
    children: list[TreeNode] = field(default_factory=list)

    @property
    def name(self) -> str:
        """Return the HyperNode's name."""
        return self.hyper_node.name

    @property
    def discovered(self) -> bool:
        """Return whether the HyperNode controller discovered it (and rewrites it)."""
        return bool((self.hyper_node.labels or {}).get(SOURCE_LABEL))

    @property
    def source(self) -> str:
        """Return the discovery source (``label``), "" for a hand-written HyperNode."""
        return str((self.hyper_node.labels or {}).get(SOURCE_LABEL, ""))

    @property
    def node_count(self) -> int:
        """Return how many existing nodes it covers."""
        return len(self.nodes)


@dataclass(slots=True)
class Topology:
    """The tree from the top tier down, and every HyperNode by name."""

    roots: list[TreeNode]
    by_name: dict[str, TreeNode]
    node_total: int
    nodes: dict[str, Node] = field(default_factory=dict)  # every node, by name
    loads: Mapping[int, Load] = field(default_factory=dict)  # by node pk

    def node_labels(self) -> list[NodeLabels]:
        """Return every node's name and labels, as member selection reads them."""
        return [NodeLabels(node.name, node.labels or {}) for node in self.nodes.values()]

    def node_free(self, name: str, resources: Iterable[str]) -> list[Free]:
        """Return one node's free amount of each of ``resources`` (a HyperNode's columns)."""
        return _free([self.nodes[name]], self.loads, tuple(resources))

    def walk(self) -> list[TreeNode]:
        """Return every HyperNode in drawing order (depth first, top tier first)."""
        out: list[TreeNode] = []

        def visit(item: TreeNode) -> None:
            out.append(item)
            for child in item.children:
                visit(child)

        for root in self.roots:
            visit(root)
        return out


@dataclass(frozen=True, slots=True)
class MemberRow:
    """One ``spec.members`` entry as a HyperNode's page lists it."""

    type: str
    how: str  # exact, regex, label
    text: str
    matched: int  # nodes it selects now (a HyperNode member: its nodes)
    child: str  # the child HyperNode's name, when it names an existing one


def _label_selector_text(selector: Mapping[str, Any]) -> str:
    """Return a label selector in kubectl's words: ``rack=r1,gpu in (a,b),!spot``."""
    parts = [f"{k}={v}" for k, v in (selector.get("matchLabels") or {}).items()]
    for expression in selector.get("matchExpressions") or []:
        key, operator = str(expression.get("key", "")), str(expression.get("operator", ""))
        values = ",".join(str(v) for v in expression.get("values") or ())
        if operator in _OPERATORS:
            parts.append(f"{key} {_OPERATORS[operator]} ({values})")
        elif operator == "Exists":
            parts.append(key)
        elif operator == "DoesNotExist":
            parts.append(f"!{key}")
        else:
            parts.append(f"{key} {operator} ({values})")
    return ",".join(parts)


def selector_text(selector: Mapping[str, Any]) -> tuple[str, str]:
    """Return how a member selects (``exact``, ``regex``, ``label``) and what it says."""
    if "exactMatch" in selector:
        return "exact", str((selector.get("exactMatch") or {}).get("name", ""))
    if "regexMatch" in selector:
        return "regex", str((selector.get("regexMatch") or {}).get("pattern", ""))
    if "labelMatch" in selector:
        return "label", _label_selector_text(selector.get("labelMatch") or {})
    return "", ""


def _selectors(members: Iterable[Mapping[str, Any]]) -> list[str]:
    """Return a HyperNode's Node members in a few words each, exact names folded together."""
    names: list[str] = []
    out: list[str] = []
    for member in members:
        if member.get("type") != MemberType.NODE:
            continue
        how, text = selector_text(member.get("selector") or {})
        if how == "exact":
            names.append(text)
        elif how == "regex":
            out.append(_("regex %(pattern)s") % {"pattern": text})
        elif how == "label":
            out.append(_("labels %(selector)s") % {"selector": text or "∅"})
    if names:
        shown = ", ".join(names[:NAMES_SHOWN])
        more = len(names) - NAMES_SHOWN
        out.insert(0, shown + (f" +{more}" if more > 0 else ""))
    return out


def _free(
    nodes: Iterable[Node], loads: Mapping[int, Load], resources: tuple[str, ...] = ()
) -> list[Free]:
    """Return ``resources`` free over ``nodes``: by default cpu, memory and, when any node
    has them, GPUs."""
    empty = Load()
    have = dict.fromkeys(RESOURCES, 0)
    left = dict.fromkeys(RESOURCES, 0)
    for node in nodes:
        load = loads.get(node.pk, empty)
        for resource in RESOURCES:
            amount = int((node.allocatable or {}).get(resource, 0) or 0)
            have[resource] += amount
            left[resource] += max(amount - load.held(resource), 0)
    if resources:
        return [Free(r, have[r], left[r]) for r in resources if r in have]
    return [Free(r, have[r], left[r]) for r in RESOURCES if r != GPU or have[GPU]]


def _parents(hyper_nodes: Mapping[str, HyperNode]) -> dict[str, str]:
    """Return each child's parent: the first HyperNode by name that names it (the engine's rule)."""
    parent: dict[str, str] = {}
    for name in sorted(hyper_nodes):
        for child in children(hyper_nodes[name].members or []):
            if child in hyper_nodes and child != name and child not in parent:
                parent[child] = name
    return parent


def _job_nodes() -> dict[int, set[int]]:
    """Return, per job id, the node ids of its pods bound there and Pending or Running."""
    rows = (
        Pod.objects.filter(job__isnull=False, node__isnull=False, phase__in=PLACED_PHASES,
                           deletion_time__isnull=True)
        .order_by()
        .values_list("job_id", "node_id")
    )  # fmt: skip
    found: dict[int, set[int]] = {}
    for job_id, node_id in rows:
        found.setdefault(job_id, set()).add(node_id)
    return found


def topology(readable: frozenset[str] | None) -> Topology:
    """Return the HyperNode tree with its free resources and the jobs landed in each.

    ``readable``: the namespaces whose jobs the reader may see (None: all); the others are
    counted, not named.
    """
    hyper_nodes = {hn.name: hn for hn in HyperNode.objects.all()}
    if not hyper_nodes:
        return Topology([], {}, Node.objects.count())
    nodes = list(Node.objects.only("pk", "name", "labels", "allocatable", "ready", "unschedulable"))
    labels = [NodeLabels(node.name, node.labels or {}) for node in nodes]
    members = {name: list(hn.members or []) for name, hn in hyper_nodes.items()}
    covered = covered_nodes(members, labels)
    direct = covered_nodes(
        {name: [m for m in ms if m.get("type") == MemberType.NODE] for name, ms in members.items()},
        labels,
    )
    loads = node_loads()
    by_node = {node.name: node for node in nodes}
    parent = _parents(hyper_nodes)
    items = {
        name: TreeNode(
            hyper_node=hn, depth=0, parent=parent.get(name, ""),
            nodes=covered.get(name, set()), direct=direct.get(name, set()),
            free=_free((by_node[n] for n in covered.get(name, ())), loads),
            selectors=_selectors(hn.members or []),
        )
        for name, hn in hyper_nodes.items()
    }  # fmt: skip
    _place_jobs(items, covered, {n: hn.tier for n, hn in hyper_nodes.items()}, nodes, readable)
    return Topology(_arrange(items), items, len(nodes), by_node, loads)


def _place_jobs(
    items: Mapping[str, TreeNode],
    covered: Mapping[str, set[str]],
    tiers: Mapping[str, int],
    nodes: list[Node],
    readable: frozenset[str] | None,
) -> None:
    """Attach every job with bound pods to the lowest-tier HyperNode holding all of them."""
    name_of = {node.pk: node.name for node in nodes}
    placed: dict[int, tuple[str, int]] = {}
    for job_id, node_ids in _job_nodes().items():
        names = {name_of[pk] for pk in node_ids if pk in name_of}
        found = lowest_holding(names, covered, tiers)
        if found is not None:
            placed[job_id] = (found, len(node_ids))
    if not placed:
        return
    jobs = Job.objects.filter(pk__in=list(placed)).order_by("namespace", "name")
    for job_id, namespace, name in jobs.values_list("pk", "namespace", "name"):
        where, _count = placed[job_id]
        item = items[where]
        if readable is not None and namespace not in readable:
            item.hidden_jobs += 1
            continue
        item.jobs.append(JobRef(namespace, name, _count))


def _arrange(items: Mapping[str, TreeNode]) -> list[TreeNode]:
    """Link children under their parents and return the roots, top tier first.

    A HyperNode caught in a cycle of parents (which Volcano refuses to build) would hang
    from nothing: it is drawn as a root rather than lost.
    """

    def order(item: TreeNode) -> tuple[int, str]:
        return (-item.hyper_node.tier, item.name)

    for item in items.values():
        if item.parent:
            items[item.parent].children.append(item)
    roots = [item for item in items.values() if not item.parent]
    placed: set[str] = set()

    def settle(item: TreeNode, depth: int) -> None:
        placed.add(item.name)
        item.depth = depth
        item.children = sorted((c for c in item.children if c.name not in placed), key=order)
        for child in item.children:
            settle(child, depth + 1)

    for root in sorted(roots, key=order):
        settle(root, 0)
    for item in sorted(items.values(), key=order):
        if item.name not in placed:
            roots.append(item)
            settle(item, 0)
    return sorted(roots, key=order)


def member_rows(item: TreeNode, topology_: Topology) -> list[MemberRow]:
    """Return ``item``'s members as written, each with how many nodes it selects now."""
    nodes = topology_.node_labels()
    rows = []
    for member in item.hyper_node.members or []:
        selector = member.get("selector") or {}
        how, text = selector_text(selector)
        member_type = str(member.get("type", ""))
        if member_type == MemberType.HYPER_NODE:
            child = topology_.by_name.get(text) if how == "exact" else None
            rows.append(MemberRow(member_type, how, text, child.node_count if child else 0,
                                  child.name if child else ""))  # fmt: skip
        else:
            rows.append(MemberRow(member_type, how, text, len(selected_nodes(selector, nodes)), ""))
    return rows
