"""Why is this job waiting? Plain words from what the scheduler recorded and the queue's state.

Each session the engine records, per waiting job, Volcano's own verdicts on the rows the
console reads: the PodGroup's phase (Pending: enqueue has not admitted it; Inqueue: admitted,
not yet placed) and its ``Unschedulable`` condition (gang's summary, "3/4 tasks in gang
unschedulable"), and on each pending pod its ``PodScheduled`` condition (the predicates'
fit-error summary, "0/5 nodes are available: 3 node(s) Insufficient cpu") and its
``nominatedNodeName`` when pipelined. This module only turns those, with the queue's state,
capability and allocation, into sentences; it recomputes no scheduling.

A job the ``resourcequota`` plugin holds at enqueue has no condition to read: Volcano records
the refusal only as a ``Normal Unschedulable`` event on the PodGroup ("resource quota
insufficient, requested: …, used: …, limited: … (ResourceQuota team-a/compute)"), so the
callers read the groups' latest such events (``quota_refusals``, one query for a page) and
pass each job's on.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Q
from django.utils.translation import gettext as _

from apis.quantity import scheduling_quantities
from console.units import quantity
from core.models import Event, Node, Pod
from queues.why_devices import hypernode_words, refusal_words

__all__ = [
    "QUOTA_REFUSAL",
    "Reason",
    "Victim",
    "WaitReport",
    "cluster_allocatable",
    "hypernode_words",
    "quota_refusals",
    "refusal_words",
    "refusing_quota",
    "why_waiting",
]

# How the resourcequota plugin's refusal event begins (Volcano's words), and how it names the
# quota at its end.
QUOTA_REFUSAL = "resource quota insufficient"
_QUOTA_NAME = re.compile(r"\(ResourceQuota ([^()\s]+)\)\s*$")


@dataclass(frozen=True, slots=True)
class Reason:
    """One cause, as a headline and optional detail lines."""

    # queue-closed, over-capability, quota, enqueue, gang, topology, predicates, devices, numa,
    # pipelined, order
    kind: str
    text: str
    details: tuple[str, ...] = ()
    # Details that are Volcano's own messages (the PodGroup's and pods' conditions): the page
    # folds them under the plain-words headline instead of printing them beside it.
    raw: bool = False
    victims: tuple[Victim, ...] = ()  # a pipelined job's: the pods evicted to make it room


@dataclass(frozen=True, slots=True)
class Victim:
    """A pod being evicted so that a pipelined job fits (its row on the waiting job's page)."""

    pod: str
    namespace: str
    node: str
    job: str  # "" for a pod no job owns
    priority: int


@dataclass(slots=True)
class WaitReport:
    """Everything the job page says about a waiting job, first cause first."""

    reasons: list[Reason] = field(default_factory=list)
    ahead: list[Any] = field(default_factory=list)  # jobs the engine takes before this one
    position: int = 0  # 1-based place among the queue's waiting jobs (0: not waiting)

    @property
    def summary(self) -> str:
        """Return the one-liner shown in lists."""
        return self.reasons[0].text if self.reasons else ""


def _quantity(name: str, milli: int) -> str:
    return quantity(int(milli), name)


def _short_of(
    wanted: Mapping[str, int], room: Mapping[str, int], names: Iterable[str]
) -> list[tuple[str, int, int]]:
    return [(n, int(wanted.get(n, 0)), int(room.get(n, 0))) for n in names
            if int(wanted.get(n, 0)) > int(room.get(n, 0))]  # fmt: skip


def quota_refusals(groups: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Return, per PodGroup ``(namespace, name)``, the resourcequota plugin's latest refusal.

    One query whatever the number of groups. Only a group's newest ``Unschedulable`` event
    counts: a group refused once and then held for another cause is not said to be over quota.
    """
    keys = set(groups)
    if not keys:
        return {}
    names = {name for _ns, name in keys}
    found: dict[tuple[str, str], str] = {}
    rows = (
        Event.objects.filter(involved_kind="PodGroup", reason="Unschedulable",
                             involved_name__in=sorted(names))
        .order_by("-last_timestamp", "-id")
        .values_list("involved_namespace", "involved_name", "message")
    )  # fmt: skip
    seen: set[tuple[str, str]] = set()
    for namespace, name, message in rows:
        key = (namespace, name)
        if key not in keys or key in seen:
            continue
        seen.add(key)
        if str(message).startswith(QUOTA_REFUSAL):
            found[key] = str(message)
    return found


def refusing_quota(message: str) -> str:
    """Return the ``namespace/name`` of the quota a refusal names ("" when it names none)."""
    match = _QUOTA_NAME.search(message)
    return match.group(1) if match else ""


def _quota_reason(refusal: str) -> Reason:
    quota = refusing_quota(refusal)
    text = (
        _("Held at enqueue by ResourceQuota %(quota)s: admitting it would take its namespace "
          "past the quota's hard limits.") % {"quota": quota}
        if quota else
        _("Held at enqueue by a ResourceQuota of its namespace: admitting it would go past "
          "the quota's hard limits.")
    )  # fmt: skip
    return Reason("quota", text, (refusal,), raw=True)


def _queue_reasons(
    job: Any,
    queue: Any | None,
    group: Any | None,
    cluster: Mapping[str, int],
    quota_refusal: str = "",
) -> list[Reason]:
    if queue is None:
        return [Reason("queue-closed", _("Queue %(q)s does not exist.") % {"q": job.queue})]
    if queue.state != "Open":
        return [Reason("queue-closed", _("Queue %(q)s is %(state)s: it admits no new jobs.")
                       % {"q": queue.name, "state": queue.state})]  # fmt: skip
    if group is None or group.phase not in ("", "Pending"):
        return []
    if quota_refusal:
        return [_quota_reason(quota_refusal)]
    wanted = scheduling_quantities(group.min_resources or {})  # what enqueue compares
    capability = dict(queue.capability or {})
    allocated = dict(queue.allocated or {})
    reasons: list[Reason] = []
    if capability and wanted:
        room = {n: max(0, int(capability[n]) - int(allocated.get(n, 0))) for n in capability}
        short = _short_of(wanted, room, capability)
        if short:
            lines = tuple(
                _("%(res)s: needs %(want)s, queue has %(room)s left of its capability %(cap)s")
                % {"res": n, "want": _quantity(n, w), "room": _quantity(n, r),
                   "cap": _quantity(n, int(capability[n]))}
                for n, w, r in short
            )  # fmt: skip
            reasons.append(Reason("over-capability", _("Queue %(q)s is over its capability for "
                                  "this job's minResources (%(res)s).")
                                  % {"q": queue.name, "res": ", ".join(s[0] for s in short)},
                                  lines))  # fmt: skip
    if not reasons:
        too_big = _short_of(wanted, cluster, [n for n in wanted if n in cluster or n == "cpu"])
        details = tuple(
            _("%(res)s: needs %(want)s, the cluster's ready nodes have %(have)s in all")
            % {"res": n, "want": _quantity(n, w), "have": _quantity(n, h)}
            for n, w, h in too_big
        )  # fmt: skip
        text = (
            _("Not admitted: its minResources (%(res)s) are more than the whole cluster has.")
            if too_big else
            _("Not admitted yet: enqueue waits until the cluster and queue %(q)s have room for "
              "minResources (%(res)s).")
        ) % {"q": queue.name, "res": _resources_text(wanted)}  # fmt: skip
        reasons.append(Reason("enqueue", text, details))
    return reasons


def _resources_text(resources: Mapping[str, int]) -> str:
    if not resources:
        return _("none requested")
    return ", ".join(f"{n} {_quantity(n, int(v))}" for n, v in sorted(resources.items())
                     if n in ("cpu", "memory") or "gpu" in n)  or _("none requested")  # fmt: skip


def _condition(conditions: Sequence[Mapping[str, Any]], kind: str) -> Mapping[str, Any] | None:
    for cond in conditions or ():
        if cond.get("type") == kind:
            return cond
    return None


def _pod_reasons(group: Any | None, pods: Sequence[Any]) -> list[Reason]:
    reasons: list[Reason] = []
    # Until the controller has created the pods (after enqueue admits the job), gang's "not
    # enough valid pods" only repeats that they do not exist yet.
    gang_message = ""
    if group is not None and pods:
        cond = _condition(group.conditions, "Unschedulable")
        if cond is not None and cond.get("status") == "True" and cond.get("message"):
            gang_message = str(cond["message"])
            running = sum(1 for p in pods if p.node_id is not None and p.phase != "Failed")
            confined = hypernode_words(group)
            if confined:
                reasons.append(Reason("topology", confined, (gang_message,), raw=True))
            else:
                reasons.append(Reason("gang", _("Gang not satisfied: %(n)s of minAvailable %(m)s "
                                      "pods can be placed together.")
                                      % {"n": running, "m": group.min_member},
                                      (gang_message,), raw=True))  # fmt: skip
    by_task: dict[str, Counter[str]] = defaultdict(Counter)
    example: dict[str, Any] = {}  # a pending pod of each task: what it asks, for the words
    pipelined: dict[str, list[str]] = defaultdict(list)
    for pod in pods:
        if pod.node_id is not None or pod.phase != "Pending":
            continue
        if pod.nominated_node_name:
            pipelined[pod.nominated_node_name].append(pod.name)
        cond = _condition(pod.conditions, "PodScheduled")
        message = str(cond.get("message") or "") if cond is not None else ""
        # A pod that fits but waits for its gang carries the gang's message: said above.
        if cond is not None and cond.get("status") == "False" and message != gang_message:
            by_task[pod.task_name or pod.name][message] += 1
            example.setdefault(pod.task_name or pod.name, pod)
    for task, messages in sorted(by_task.items()):
        lines = tuple(f"{count} pod(s): {msg}" for msg, count in messages.most_common())
        plain = refusal_words(messages, example.get(task))
        if plain:
            reasons.append(Reason(plain[0][0], _("Task %(t)s: %(why)s.") % {
                "t": task, "why": "; ".join(words for _kind, words in plain)}, lines, raw=True))  # fmt: skip
            continue
        reasons.append(Reason("predicates", _("Task %(t)s: no node fits its pending pods.")
                              % {"t": task}, lines, raw=True))  # fmt: skip
    victims = _victims(pods, pipelined)
    for node, names in sorted(pipelined.items()):
        reasons.append(Reason("pipelined", _("Pipelined: %(n)s pod(s) wait for node %(node)s, "
                              "where pods are being evicted to make room.")
                              % {"n": len(names), "node": node}, tuple(sorted(names)),
                              victims=tuple(v for v in victims if v.node == node)))  # fmt: skip
    return reasons


def _victims(pods: Sequence[Any], pipelined: Mapping[str, list[str]]) -> list[Victim]:
    """Return the pods still terminating on ``pipelined``'s nodes that were evicted for it.

    The scheduler's ``Evict`` event names the preemptor (``… (for default/trainer-worker-0)``,
    written by its cache), so a pod evicted on the same node for another job is not listed.
    """
    if not pipelined:
        return []
    wanted = Q()
    for pod in pods:
        # A what-if's predicted pods (no namespace: nothing was evicted for them) are skipped.
        namespace = getattr(pod, "namespace", "")
        if pod.nominated_node_name and namespace:
            wanted |= Q(message__endswith=f"(for {namespace}/{pod.name})")
    if not wanted:
        return []
    evicted = set(
        Event.objects.filter(wanted, involved_kind="Pod", reason="Evict").values_list(
            "involved_namespace", "involved_name"
        )
    )
    rows = (
        Pod.objects.filter(node__name__in=list(pipelined), deletion_time__isnull=False)
        .select_related("node", "job")
        .order_by("node__name", "priority", "name")
    )
    return [
        Victim(row.name, row.namespace, row.node.name, row.job.name if row.job else "",
               row.priority)
        for row in rows
        if row.node is not None and (row.namespace, row.name) in evicted
    ]  # fmt: skip


def cluster_allocatable(*, schedulable_only: bool = True) -> dict[str, int]:
    """Return the allocatable resources of the ready, schedulable nodes, summed (milli-units);
    of every ready node, cordoned or not, when not ``schedulable_only`` (what drf divides by).

    Summed in SQL, one row per resource: decoding 20,000 nodes' JSON in Python cost the
    Overview about 60 ms. SQLite's 64-bit SUM would overflow past 9.2e18 milli-units (about
    33,000 nodes of 256 GiB), so there the thousands and the rest are summed apart.
    """
    table = connection.ops.quote_name(Node._meta.db_table)
    where = "n.ready AND NOT n.unschedulable" if schedulable_only else "n.ready"
    if connection.vendor == "postgresql":
        sql = (
            f"SELECT e.key, SUM(e.value::numeric), 0 FROM {table} AS n, "
            f"jsonb_each_text(n.allocatable) AS e WHERE {where} GROUP BY e.key"
        )
    else:
        sql = (
            "SELECT e.key, SUM(CAST(e.value AS INTEGER) / 1000), SUM(CAST(e.value AS INTEGER) % 1000) "
            f"FROM {table} AS n, json_each(n.allocatable) AS e WHERE {where} GROUP BY e.key"
        )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        rows = cursor.fetchall()
    if connection.vendor == "postgresql":
        return {key: int(total) for key, total, _rest in rows}
    return {key: int(high) * 1000 + int(low) for key, high, low in rows}


def why_waiting(
    job: Any,
    *,
    waiting: bool = True,
    group: Any | None,
    pods: Sequence[Any],
    queue: Any | None,
    ahead: Sequence[Any] = (),
    position: int = 0,
    cluster: Mapping[str, int] | None = None,
    quota_refusal: str = "",
) -> WaitReport:
    """Return why ``job`` waits (an empty report when it does not).

    ``waiting`` says whether the job's phase is one in which it waits (the jobs app's
    ``WAITING_PHASES``); a job in another phase has reasons only while it is Running with pods
    no node took yet. ``quota_refusal`` is the resourcequota plugin's latest refusal event
    on the job's PodGroup (``quota_refusals``), if any.
    """
    report = WaitReport(ahead=list(ahead), position=position)
    waiting_pods = any(p.node_id is None and p.phase == "Pending" for p in pods)
    if not waiting and not (job.phase == "Running" and waiting_pods):
        return report
    if job.phase == "" and group is None:
        report.reasons.append(Reason("new", _("Just submitted: the controller has not created "
                                     "its PodGroup yet.")))  # fmt: skip
        return report
    if pods and not waiting_pods and all(p.node_id is not None for p in pods):
        report.reasons.append(Reason("starting", _("Placed: all its pods are bound and starting "
                                     "on their nodes.")))  # fmt: skip
        return report
    report.reasons.extend(_queue_reasons(job, queue, group, cluster or {}, quota_refusal))
    report.reasons.extend(_pod_reasons(group, pods))
    if ahead:
        report.reasons.append(Reason("order", _("%(n)s job(s) ahead of it in queue %(q)s.")
                                     % {"n": len(ahead), "q": job.queue}))  # fmt: skip
    if not report.reasons and group is not None and group.phase == "Inqueue":
        report.reasons.append(Reason("inqueue", _("Admitted (Inqueue): its pods are created and "
                                     "placed at the next scheduling sessions.")))  # fmt: skip
    elif not report.reasons:
        report.reasons.append(Reason("session", _("Waiting for the next scheduling session.")))
    return report
