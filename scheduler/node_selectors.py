"""Reads for the Nodes pages: each node's allocatable, allocated and idle resources, its pods.

Allocated is what the scheduler counts as held on a node: the requests of its bound pods that
are Pending or Running (``scheduler.cache.binds.node_loads``' rule). The list, its sorts and
the heat map read the figures the worker stored after its last session (``node_loads``,
``scheduler.load_status``: at most one session behind the pods), never a query per node, so
they stay cheap with 5,000 nodes; without a fresh store they sum them in SQL, one ``GROUP BY
node_id`` over the pods for every node at once. cpu, memory and GPUs come from the pods'
BIGINT columns; other resources a node advertises are summed from the pods' JSON requests on
a node's own page only, which reads its own pods and so is exact.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from django.db import connection
from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.fields.json import KT
from django.utils.translation import gettext as _

from accounts.models import AuditEntry
from apis.quantity import format_quantity
from apis.wire import is_binary_resource
from core.models import Event, Node, Pod
from kube.changes import latest_resource_version
from kube.selectors import parse_label_selector
from kube.status import KubeError
from scheduler.load_status import fresh_stamp, loads_fresh, read_stored_loads
from scheduler.node_devices import (
    NodeGpus,
    NodeNuma,
    gpu_summaries,
    node_gpus,
    node_numa,
    numa_policies,
)

__all__ = [
    "ACTIVE_PHASES",
    "GPU",
    "HEAT_RESOURCES",
    "NODE_SORTS",
    "KeptPerChange",
    "Load",
    "NodeFilterError",
    "NodePage",
    "NodeRow",
    "Usage",
    "allocatable_of",
    "amount",
    "has_label",
    "label_keys",
    "node_audit",
    "node_loads",
    "node_page",
    "node_rows",
    "nodes_filtered",
    "page_rows",
]

T = TypeVar("T")
ACTIVE_PHASES = ("Pending", "Running")
GPU = "nvidia.com/gpu"
# The resources summed in SQL (the pods' indexed BIGINT columns), in the order shown.
HEAT_RESOURCES = ("cpu", "memory", GPU, "pods")
FINISHED_SHOWN = 20
# Sorts computed in SQL on the node rows, and sorts on the load (share of allocatable held).
_SQL_SORTS: dict[str, Sequence[str]] = {
    "name": ("name",),
    "ready": ("ready", "name"),
    "cordoned": ("unschedulable", "name"),
}
_LOAD_SORTS = {"cpu": "cpu", "memory": "memory", "gpu": GPU, "pods": "pods"}
NODE_SORTS: dict[str, Sequence[str]] = {**_SQL_SORTS, **{k: (k,) for k in _LOAD_SORTS}}


class NodeFilterError(ValueError):
    """A filter the page cannot apply: ``field`` names the form field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


@dataclass(frozen=True, slots=True)
class Usage:
    """One resource of one node: allocatable, allocated (milli-units) and how to print them."""

    name: str
    allocatable: int
    allocated: int

    @property
    def idle(self) -> int:
        """Return what is left (never negative: a node can be over-committed after a resize)."""
        return max(self.allocatable - self.allocated, 0)

    @property
    def percent(self) -> float:
        """Return allocated as a share of allocatable (0 when the node has none)."""
        return round(100 * self.allocated / self.allocatable, 1) if self.allocatable else 0.0

    def text(self, milli: int) -> str:
        """Return ``milli`` of this resource as a Kubernetes quantity (``16Gi``, ``500m``)."""
        return format_quantity(milli, binary=is_binary_resource(self.name))

    @property
    def allocatable_text(self) -> str:
        """Return allocatable as a quantity."""
        return self.text(self.allocatable)

    @property
    def allocated_text(self) -> str:
        """Return allocated as a quantity."""
        return self.text(self.allocated)

    @property
    def idle_text(self) -> str:
        """Return idle as a quantity."""
        return self.text(self.idle)

    @property
    def level(self) -> str:
        """Return the bar's class: ``bad`` from 90 %, ``warn`` from 70 %."""
        return "bad" if self.percent >= 90 else "warn" if self.percent >= 70 else ""

    @property
    def width(self) -> str:
        """Return the bar's width in percent, capped at 100, as CSS wants it."""
        return f"{min(self.percent, 100.0):g}"

    @property
    def summary(self) -> str:
        """Return "allocated / allocatable · idle idle", the table cell's words."""
        return _("%(used)s / %(have)s · %(idle)s idle") % {
            "used": self.allocated_text, "have": self.allocatable_text, "idle": self.idle_text
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class Load:
    """What the live pods of one node hold: cpu, memory, GPUs (milli-units) and their count."""

    cpu: int = 0
    memory: int = 0
    gpu: int = 0
    pods: int = 0

    def held(self, resource: str) -> int:
        """Return the milli-units of ``resource`` held (pods count 1,000 each, as in Volcano)."""
        if resource == "cpu":
            return self.cpu
        if resource == "memory":
            return self.memory
        if resource == "pods":
            return self.pods * 1000
        return self.gpu if resource == GPU else 0


@dataclass(slots=True)
class NodeRow:
    """One line of the nodes table: the node and its usage per resource."""

    node: Node
    load: Load
    usages: list[Usage] = field(default_factory=list)
    gpus: NodeGpus | None = None  # its cards, when it registers any (the GPU column)
    numa_policy: str = ""  # its TopologyManagerPolicy, when it publishes a Numatopology

    def usage(self, resource: str) -> Usage:
        """Return the usage of ``resource`` (zero when the node does not advertise it)."""
        for usage in self.usages:
            if usage.name == resource:
                return usage
        return Usage(resource, 0, 0)

    @property
    def label_chips(self) -> tuple[list[str], int]:
        """Return the first labels as ``key=value`` (three at most) and how many more there are."""
        pairs = [f"{k}={v}" for k, v in (self.node.labels or {}).items()]
        return pairs[:3], max(len(pairs) - 3, 0)

    @property
    def taint_chips(self) -> list[str]:
        """Return the taints as ``key:effect``."""
        return [f"{t.get('key', '')}:{t.get('effect', '')}" for t in self.node.taints or []
                if isinstance(t, dict)]  # fmt: skip

    @property
    def columns(self) -> list[tuple[Usage, str]]:
        """Return the table's resource cells before the GPU column, each with its CSS class."""
        return [(self.cpu, ""), (self.memory, "hide-sm")]

    @property
    def last_columns(self) -> list[tuple[Usage, str]]:
        """Return the cells after the GPU column (shown only when some node has GPUs)."""
        return [(self.pods, "hide-sm")]

    @property
    def cpu(self) -> Usage:
        """Return the cpu usage (the table's column)."""
        return self.usage("cpu")

    @property
    def memory(self) -> Usage:
        """Return the memory usage."""
        return self.usage("memory")

    @property
    def gpu(self) -> Usage:
        """Return the GPU usage (zero on a node without GPUs)."""
        return self.usage(GPU)

    @property
    def pods(self) -> Usage:
        """Return the pod count against the node's pod capacity."""
        return self.usage("pods")


def _aggregate_loads(pks: Iterable[int] | None) -> dict[int, Load]:
    pods = Pod.objects.filter(node__isnull=False, phase__in=ACTIVE_PHASES)
    if pks is not None:
        pods = pods.filter(node_id__in=list(pks))
    rows = (
        pods.order_by()
        .values_list("node_id")
        .annotate(
            cpu=Sum("cpu_milli"), memory=Sum("memory_milli"), gpu=Sum("gpu_milli"), n=Count("pk")
        )
    )
    return {
        node_id: Load(int(cpu or 0), int(memory or 0), int(gpu or 0), int(n))
        for node_id, cpu, memory, gpu, n in rows
    }


class KeptPerChange(Generic[T]):
    """Answers kept while the change stream has not moved (a few keys, newest kept).

    Every pod or node write moves the stream, and every open page's live regions refresh
    after the same change, so they share one computation instead of each paying for it.
    Inside a transaction (a write, a test) nothing is kept: its position could roll back.
    """

    def __init__(self, *, size: int) -> None:
        self.size = size
        self.position = -1
        self.kept: dict[Hashable, T] = {}
        self.lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """Return the answer for ``key`` at the stream's current position, computing it once."""
        if connection.in_atomic_block:
            return compute()
        position = latest_resource_version()
        with self.lock:  # one thread computes; the others wait for its answer
            if position != self.position:
                self.position, self.kept = position, {}
            if key not in self.kept:
                if len(self.kept) >= self.size:
                    self.kept.pop(next(iter(self.kept)))
                self.kept[key] = compute()
            return self.kept[key]


_EVERY_LOAD: KeptPerChange[dict[int, Load]] = KeptPerChange(size=2)


def node_loads(pks: Iterable[int] | None = None) -> dict[int, Load]:
    """Return each node's load by primary key (``pks``: only those, summed exactly).

    Every node's loads (``pks`` None: the table, the heat map, a sort by load) are the ones the
    worker stored after its last session (``scheduler.load_status``): behind the pods by at
    most one session, and read without touching the pods. When none are fresh (no worker
    running) they are summed from the pods, one pass over every live pod (50,000 pods: the
    better part of 100 ms, as ``pods.node`` is not indexed on purpose), kept until the change
    stream moves.
    """
    if pks is not None:
        return _aggregate_loads(pks)
    stamp = fresh_stamp()
    if stamp is not None:  # kept per store too: a store moves no change stream
        return _EVERY_LOAD.get(("stored", stamp), _read_stored)
    return _EVERY_LOAD.get("all", lambda: _aggregate_loads(None))


def _read_stored() -> dict[int, Load]:
    return {pk: Load(*held) for pk, held in read_stored_loads().items()}


def usages(allocatable: Mapping[str, Any], load: Load) -> list[Usage]:
    """Return the heat map's resources of a node: cpu, memory, pods, and GPUs when it has any."""
    return [
        Usage(name, int(allocatable.get(name, 0) or 0), load.held(name))
        for name in HEAT_RESOURCES
        if name != GPU or allocatable.get(GPU) or load.gpu
    ]


def nodes_filtered(filters: Mapping[str, str]) -> QuerySet[Node]:
    """Return the nodes matching the page's filters: ``q`` (name), ``selector``, ready, cordoned.

    Raises ``NodeFilterError`` naming the field when the label selector cannot be parsed.
    """
    nodes = Node.objects.all()
    if q := filters.get("q", "").strip():
        nodes = nodes.filter(name__icontains=q)
    if text := filters.get("selector", "").strip():
        try:
            requirements = parse_label_selector(text)
        except KubeError as exc:
            raise NodeFilterError("selector", str(exc.message)) from exc
        condition = Q()
        for requirement in requirements:
            condition &= requirement.label_q()
        nodes = nodes.filter(condition)
    for name, column in (("ready", "ready"), ("cordoned", "unschedulable")):
        value = filters.get(name, "")
        if value in ("yes", "no"):
            nodes = nodes.filter(**{column: value == "yes"})
    return nodes


def amount(text: Any) -> int:
    """Return a milli-unit amount read as text from a JSON column (0 when absent)."""
    try:
        return int(text or 0)
    except (TypeError, ValueError):
        return 0


def allocatable_of(nodes: QuerySet[Node], resource: str, *fields: str) -> list[tuple[Any, ...]]:
    """Return ``(pk, *fields, allocatable of resource)`` of each node, read in SQL.

    The one resource is extracted by the database (``allocatable -> 'cpu'``), so Python never
    decodes 5,000 JSON documents for a sort or a heat map row.
    """
    rows = nodes.order_by().values_list("pk", *fields, KT(f"allocatable__{resource}"))
    return [(*row[:-1], amount(row[-1])) for row in rows]


def _load_key(resource: str, have: int, load: Load) -> tuple[float, int]:
    """Return the sort key of a load sort: the share held, then the amount held."""
    held = load.held(resource)
    return (held / have if have else 0.0, held)


def node_rows(nodes: QuerySet[Node], *, sort: str, descending: bool) -> list[int] | QuerySet[Node]:
    """Return ``nodes`` in table order: a queryset (SQL sorts) or primary keys (load sorts).

    A load sort needs every filtered node's allocatable and load: two queries of narrow
    columns, sorted in Python (5,000 nodes: a few milliseconds); the page then reads its rows.
    """
    if sort not in _LOAD_SORTS:
        names = _SQL_SORTS.get(sort, ("name",))
        order = [f"-{n}" if descending else n for n in names]
        return nodes.order_by(*order, "pk")
    resource = _LOAD_SORTS[sort]
    loads = node_loads()
    empty = Load()
    rows = allocatable_of(nodes, resource, "name")
    rows.sort(key=lambda r: r[1])
    rows.sort(key=lambda r: _load_key(resource, r[2], loads.get(r[0], empty)),
              reverse=descending)  # fmt: skip
    return [pk for pk, _name, _have in rows]


def page_rows(items: Iterable[Any]) -> list[NodeRow]:
    """Return the table rows of one page (``items``: nodes, or primary keys of a load sort)."""
    items = list(items)
    if items and not isinstance(items[0], Node):
        by_pk = Node.objects.in_bulk(list(items))
        nodes = [by_pk[pk] for pk in items if pk in by_pk]
    else:
        nodes = list(items)
    # The stored loads ride on the node rows; without a fresh store, every node's loads are
    # summed, kept per change-stream position and shared with the heat map and the other open
    # pages, so a refresh after a change pays for one aggregate, not one per region.
    empty = Load()
    if loads_fresh():
        loads = {n.pk: Load(n.load_cpu, n.load_memory, n.load_gpu, n.load_pods) for n in nodes}
    else:
        loads = node_loads()
    # The page's devices: one read of the pods holding shared cards on these nodes, one of
    # their Numatopologies; none per node.
    gpus = gpu_summaries(nodes, {pk: load.gpu for pk, load in loads.items()})
    policies = numa_policies(n.name for n in nodes)
    rows = []
    for node in nodes:
        load = loads.get(node.pk, empty)
        rows.append(NodeRow(node, load, usages(node.allocatable or {}, load),
                            gpus.get(node.pk), policies.get(node.name, "")))  # fmt: skip
    return rows


def label_keys(*, limit: int = 200) -> list[str]:
    """Return the label keys found on any node (for "group by"), sorted; hostnames left out.

    Collected by the database (one DISTINCT over the keys), never by decoding every node's
    labels in Python.
    """
    table = Node._meta.db_table
    if connection.vendor == "postgresql":
        sql = f"SELECT DISTINCT jsonb_object_keys(labels) FROM {table}"
    else:
        sql = f"SELECT DISTINCT j.key FROM {table}, json_each({table}.labels) AS j"
    with connection.cursor() as cursor:
        cursor.execute(sql)
        keys = {str(key) for (key,) in cursor.fetchall()}
    keys.discard("kubernetes.io/hostname")
    return sorted(keys)[:limit]


def has_label(key: str) -> bool:
    """Return whether any node carries label ``key``."""
    return bool(key) and Node.objects.filter(labels__has_key=key).exists()


@dataclass(slots=True)
class NodePage:
    """Everything a node's page shows."""

    node: Node
    usages: list[Usage]
    pods: list[Pod]
    hidden_pods: int
    live_pods: int
    events: list[Event]
    audit: list[AuditEntry]
    gpus: NodeGpus | None = None
    numa: NodeNuma | None = None


def node_audit(name: str, *, limit: int = 50) -> list[AuditEntry]:
    """Return the audit entries about node ``name``: its changes and faults injected into it."""
    entries = AuditEntry.objects.filter(
        Q(kind="Node", name=name) | Q(kind="Fault", name=f"nodes/{name}")
    )
    return list(entries.order_by("-created_at", "-id")[:limit])


def node_page(node: Node, *, readable: frozenset[str] | None, pod_limit: int = 500) -> NodePage:
    """Return ``node``'s page: every resource it advertises, its pods, events and audit.

    ``readable``: the namespaces whose pods the user may see (``None``: all); the others are
    only counted. Finished pods are listed after the live ones, newest first.
    """
    # One pass over the pods: ``pods.node`` is not indexed (see core.models.pod), so each
    # query by node reads the whole table; one read, split here, costs a third of three.
    pods = list(Pod.objects.filter(node_id=node.pk).select_related("job").defer("spec"))
    live = [p for p in pods if p.phase in ACTIVE_PHASES]
    held: dict[str, int] = {}
    for pod in live:
        for name, value in (pod.requests or {}).items():
            held[name] = held.get(name, 0) + int(value)
    held["pods"] = 1000 * len(live)
    allocatable = node.allocatable or {}
    names = [n for n in HEAT_RESOURCES if n in allocatable or held.get(n)]
    names += sorted(set(allocatable) - set(names))
    mine = pods if readable is None else [p for p in pods if p.namespace in readable]
    visible = sorted((p for p in mine if p.phase in ACTIVE_PHASES),
                     key=lambda p: (p.namespace, p.name))[:pod_limit]  # fmt: skip
    finished = [p for p in mine if p.phase not in ACTIVE_PHASES]
    finished.sort(key=lambda p: (p.finish_time is not None, p.finish_time, p.pk), reverse=True)
    visible += finished[:FINISHED_SHOWN]  # the most recent finished pods, after the live ones
    hidden = len(pods) - len(mine)
    events = list(
        Event.objects.filter(involved_kind="Node", involved_name=node.name).order_by(
            "-last_timestamp", "-id"
        )[:50]
    )
    return NodePage(
        node=node,
        usages=[Usage(n, int(allocatable.get(n, 0) or 0), held.get(n, 0)) for n in names],
        pods=visible,
        hidden_pods=hidden,
        live_pods=len(live),
        events=events,
        audit=node_audit(node.name),
        gpus=node_gpus(node, live, readable=readable),
        numa=node_numa(node.name, readable=readable),
    )
