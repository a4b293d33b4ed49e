"""What-if: the engine run on one database snapshot with a draft and with the active conf.

Before an operator activates a configuration (or changes a queue) the console shows what the
next session would do differently: which pods each side binds, evicts, pipelines or leaves
pending (and why, in the job console's why-pending words), each queue's allocated and deserved
share, and each waiting job's place in line. Both sides run ``run_session``, the code path of
the worker and of ``manage.py simulate``, on copies of one snapshot read in one transaction, so
the only difference between them is the change under study. ``WhatIfReport.scenario`` writes
that snapshot as a scenario file; ``manage.py simulate`` replays it to the same decisions.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection, transaction

from apis.errors import EngineError
from kube import failpoints
from queues.models import PodGroup
from queues.why import QUOTA_REFUSAL, why_waiting
from scheduler.cache.export import snapshot_to_scenario
from scheduler.cache.snapshot import read_snapshot
from scheduler.engine import load_conf, run_session
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.types import ALLOCATED_STATUSES, TaskStatus
from scheduler.engine.framework.decisions import Decisions
from scheduler.engine.shares import ShareReport
from scheduler.models import SchedulerConfiguration

__all__ = [
    "EvictionRow",
    "PendingJob",
    "QueueShare",
    "SideReport",
    "WhatIfError",
    "WhatIfReport",
    "run_what_if",
]

Progress = Callable[[float, str], None]
QueueChanges = Mapping[str, Mapping[str, Any]]
_QUEUE_FIELDS = ("weight", "capability", "deserved", "guarantee")
_SHOWN = ("cpu", "memory", "nvidia.com/gpu")
_WAITING = frozenset({TaskStatus.PENDING, TaskStatus.PIPELINED})


class WhatIfError(ValueError):
    """Bad input to a what-if, naming the field (``draft``, ``queues.<name>.weight``, …)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class EvictionRow:
    """One predicted eviction: the pod, its node, the action that evicts it, for whom, and the
    plugin that named it when one did (shuffle's victim hooks: tdm, pdb)."""

    pod: str
    node: str
    action: str
    preemptor: str = ""
    plugin: str = ""

    @property
    def chosen_by(self) -> str:
        """Return ``shuffle (tdm)``, or the action alone when no plugin named the pod."""
        return f"{self.action} ({self.plugin})" if self.plugin else self.action


@dataclass(frozen=True, slots=True)
class PendingJob:
    """A job left with pending pods, and why (the job console's words)."""

    job: str
    queue: str
    pending: int
    reason: str
    details: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class QueueShare:
    """A queue after the session: allocated and deserved (milli-units) and the dominant share."""

    name: str
    weight: int
    allocated: dict[str, int]
    deserved: dict[str, int]
    share: float  # max over resources of allocated / deserved (0 when nothing is deserved)


@dataclass(slots=True)
class SideReport:
    """What one configuration would do with the snapshot."""

    label: str
    conf_text: str
    binds: dict[str, str] = field(default_factory=dict)
    evictions: list[EvictionRow] = field(default_factory=list)
    pipelined: dict[str, str] = field(default_factory=dict)
    pending: dict[str, PendingJob] = field(default_factory=dict)
    queues: dict[str, QueueShare] = field(default_factory=dict)
    line: dict[str, int] = field(default_factory=dict)  # waiting job → place in its queue's line
    seconds: float = 0.0


@dataclass(slots=True)
class WhatIfReport:
    """Both sides of a what-if on one snapshot, and that snapshot (for the scenario file)."""

    active: SideReport
    draft: SideReport
    taken_at: datetime
    node_count: int
    job_count: int
    pod_count: int
    seconds: float
    queue_changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    job_names: dict[str, str] = field(default_factory=dict)  # PodGroup key → its Job's key
    snapshot: ClusterInfo | None = field(default=None, repr=False, compare=False)

    def scenario(self, side: str = "draft") -> str:
        """Return the snapshot as a scenario file with ``side``'s conf (and queue changes)."""
        if self.snapshot is None:
            raise WhatIfError("", "this report kept no snapshot")
        chosen = self.draft if side == "draft" else self.active
        cluster = copy.copy(self.snapshot)
        if side == "draft" and self.queue_changes:
            cluster.queues = _changed_queues(self.snapshot.queues, self.queue_changes)
        return snapshot_to_scenario(
            cluster,
            conf_text=chosen.conf_text,
            name=f"what-if-{side}",
            description=f"What-if snapshot of {self.taken_at:%Y-%m-%d %H:%M:%S} UTC, "
            f"{chosen.label} configuration",
        )

    @property
    def binds_only_in_draft(self) -> dict[str, str]:
        """Return the binds the draft makes that the active conf does not (pod → node)."""
        return {p: n for p, n in self.draft.binds.items() if self.active.binds.get(p) != n}

    @property
    def binds_only_in_active(self) -> dict[str, str]:
        """Return the binds the active conf makes that the draft does not."""
        return {p: n for p, n in self.active.binds.items() if self.draft.binds.get(p) != n}

    @property
    def line_moves(self) -> list[tuple[str, int, int]]:
        """Return (job, place with active, place with draft) for jobs whose place changes."""
        jobs = sorted(set(self.active.line) | set(self.draft.line))
        return [(j, self.active.line.get(j, 0), self.draft.line.get(j, 0)) for j in jobs
                if self.active.line.get(j, 0) != self.draft.line.get(j, 0)]  # fmt: skip


def _resource(value: Any, field: str) -> Resource | None:
    if value is None or value == {}:
        return None
    if not isinstance(value, Mapping):
        raise WhatIfError(field, "expected a mapping of resource quantities")
    try:
        return Resource.parse(value, field=field)
    except EngineError as exc:
        raise WhatIfError(getattr(exc, "field", field) or field, str(exc)) from exc


def _changed_queues(
    queues: Mapping[str, QueueInfo], changes: Mapping[str, Mapping[str, Any]]
) -> dict[str, QueueInfo]:
    """Return ``queues`` with ``changes`` applied (new QueueInfo objects; inputs untouched)."""
    out = dict(queues)
    for name, change in changes.items():
        base = out.get(name)
        if base is None:
            raise WhatIfError(f"queues.{name}", "no such queue")
        unknown = set(change) - set(_QUEUE_FIELDS)
        if unknown:
            raise WhatIfError(f"queues.{name}.{sorted(unknown)[0]}", "unknown field")
        updates: dict[str, Any] = {}
        if "weight" in change:
            weight = change["weight"]
            if isinstance(weight, bool) or not isinstance(weight, int) or weight < 0:
                raise WhatIfError(f"queues.{name}.weight", "expected a whole number ≥ 0")
            updates["weight"] = weight
        for key in ("capability", "deserved", "guarantee"):
            if key in change:
                updates[key] = _resource(change[key], f"queues.{name}.{key}")
        out[name] = dataclasses.replace(base, **updates)
    return out


def _milli(resource: Resource | None) -> dict[str, int]:
    return {n: int(v) for n, v in resource.items() if n in _SHOWN and v} if resource else {}


def _line(shares: ShareReport) -> dict[str, int]:
    """Return each waiting job's 1-based place in its queue, as the engine orders them."""
    return {
        job: place for jobs in shares.job_order.values() for place, job in enumerate(jobs, start=1)
    }


def _deserved(shares: ShareReport, queue: QueueInfo) -> dict[str, int]:
    """Return the sharing plugin's deserved (proportion or capacity), else the queue's spec."""
    share = shares.queues.get(queue.name)
    if share is None or not share.taking_part:
        return _milli(queue.deserved)
    return {n: int(v) for n, v in share.deserved.items() if n in _SHOWN and v}


def _allocated(cluster: ClusterInfo) -> dict[str, dict[str, int]]:
    totals: dict[str, dict[str, int]] = {}
    for job in cluster.jobs.values():
        row = totals.setdefault(job.queue, {})
        for task in job.tasks.values():
            if task.status in ALLOCATED_STATUSES:
                for name, value in task.resreq.items():
                    if name in _SHOWN and value:
                        row[name] = row.get(name, 0) + int(value)
    return totals


class _Row:
    """Attribute bag standing in for a model row in ``queues.why`` (which reads attributes)."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


def _pending_jobs(
    cluster: ClusterInfo,
    decisions: Decisions,
    allocated: Mapping[str, Mapping[str, int]],
    total: Mapping[str, int],
) -> dict[str, PendingJob]:
    """Return the jobs left with pending pods, each with the job console's first reason."""
    out: dict[str, PendingJob] = {}
    for uid, job in cluster.jobs.items():
        # Pipelined pods still wait (for the room evictions free): the job console says so.
        left = [t for t in job.tasks.values()
                if t.status in _WAITING and t.uid not in decisions.binds]  # fmt: skip
        if not left:
            continue
        phase = str(decisions.pod_group_phases.get(uid, job.phase))
        conds = decisions.pod_group_conditions.get(uid, job.conditions)
        group = _Row(phase=phase, min_member=job.min_available,
                     min_resources=job.min_resources.as_dict() if job.min_resources else {},
                     conditions=[{"type": c.type, "status": c.status, "message": c.message}
                                 for c in conds])  # fmt: skip
        pods = [
            _Row(name=t.name, task_name=t.role, phase="Pending", node_id=None,
                 nominated_node_name=decisions.pipelined.get(t.uid, ""),
                 conditions=[{"type": "PodScheduled", "status": "False",
                              "message": decisions.task_fit_errors.get(t.uid, "")}])
            for t in left
        ]  # fmt: skip
        placed = len(job.tasks) - len(left)
        pods += [_Row(name="", task_name="", phase="Running", node_id=1, nominated_node_name="",
                      conditions=[])] * placed  # fmt: skip
        queue = cluster.queues.get(job.queue)
        queue_row = None
        if queue is not None:
            queue_row = _Row(name=queue.name, state=str(queue.state),
                             capability=queue.capability.as_dict() if queue.capability else {},
                             allocated=dict(allocated.get(queue.name, {})))  # fmt: skip
        job_row = _Row(phase="Running" if placed else "Pending", queue=job.queue)
        refusals = [
            e.message
            for e in decisions.pod_group_events.get(uid, ())
            if e.reason == "Unschedulable" and e.message.startswith(QUOTA_REFUSAL)
        ]
        report = why_waiting(job_row, group=group, pods=pods, queue=queue_row, cluster=total,
                             quota_refusal=refusals[-1] if refusals else "")  # fmt: skip
        # A pipelined job's news is where it will run, not the gang verdict that precedes it.
        pipelined = [r for r in report.reasons if r.kind == "pipelined"]
        first = next(iter(pipelined or report.reasons), None)
        out[uid] = PendingJob(
            job=uid, queue=job.queue, pending=len(left),
            reason=first.text if first is not None else "",
            details=first.details if first is not None else (),
        )  # fmt: skip
    return out


def _run_side(label: str, conf_text: str, cluster: ClusterInfo) -> SideReport:
    started = time.perf_counter()
    conf = load_conf(conf_text)
    total = {n: int(v) for n, v in cluster.total_allocatable().items()}
    # The shares (deserved, the line of waiting jobs) as the plugins computed them at open:
    # the same report the worker stores for the queue pages.
    decisions = run_session(cluster, conf, uid=f"what-if-{label}", report_shares=True)
    shares = decisions.shares
    assert shares is not None
    allocated = _allocated(cluster)
    side = SideReport(label=label, conf_text=conf_text)
    side.binds = dict(sorted(decisions.binds.items()))
    side.evictions = [EvictionRow(e.task, e.node, e.reason, e.preemptor, e.plugin)
                      for e in decisions.evictions]  # fmt: skip
    side.pipelined = dict(sorted(decisions.pipelined.items()))
    side.pending = _pending_jobs(cluster, decisions, allocated, total)
    side.line = _line(shares)
    for name, queue in sorted(cluster.queues.items()):
        got = dict(allocated.get(name, {}))
        deserved = _deserved(shares, queue)
        share = max((got.get(n, 0) / v for n, v in deserved.items() if v > 0), default=0.0)
        side.queues[name] = QueueShare(name, queue.weight, got, deserved, share)
    side.seconds = time.perf_counter() - started
    return side


def _read_two(now: datetime) -> tuple[ClusterInfo, ClusterInfo]:
    """Return two independent copies of one snapshot (one read transaction)."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and outermost:
            with connection.cursor() as cursor:  # as read_snapshot: one instant for both
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        first = read_snapshot(now=now).cluster
        second = read_snapshot(now=now).cluster
    return first, second


class _Pristine:
    """What a session changes in a snapshot that a scenario file records, to put it back.

    A third read (or a deep copy) of a large snapshot costs as much as a session; the scenario
    export reads only pod phases and nodes, PodGroup phases and the static fields, so after the
    active side has run its copy is restored from this record and exported instead.
    """

    def __init__(self, cluster: ClusterInfo) -> None:
        self.cluster = cluster
        self.tasks = [(t, t.status, t.node_name) for j in cluster.jobs.values()
                      for t in j.tasks.values()]  # fmt: skip
        self.jobs = [(j, j.phase, len(j.conditions)) for j in cluster.jobs.values()]

    def restore(self) -> ClusterInfo:
        """Return the cluster with every recorded field as it was read."""
        for task, status, node in self.tasks:
            task.status, task.node_name = status, node
        for job, phase, conditions in self.jobs:
            job.phase = phase
            del job.conditions[conditions:]
        return self.cluster


def _job_names(keys: set[str]) -> dict[str, str]:
    """Return the Volcano Job (``ns/name``) of each PodGroup key that has one."""
    names = {key.split("/", 1)[1] for key in keys if "/" in key}
    rows = PodGroup.objects.filter(name__in=names, job__isnull=False).values_list(
        "namespace", "name", "job__name"
    )
    return {f"{ns}/{group}": f"{ns}/{job}" for ns, group, job in rows if f"{ns}/{group}" in keys}


def run_what_if(
    draft_conf_text: str | None,
    *,
    queue_changes: QueueChanges | None = None,
    progress: Progress | None = None,
    now: datetime | None = None,
) -> WhatIfReport:
    """Return what the draft (and ``queue_changes``) would do, next to the active conf.

    ``draft_conf_text`` None means the active conf (a queue-only what-if). ``queue_changes``
    maps a queue name to new ``weight`` (int), ``capability``, ``deserved`` and ``guarantee``
    (``{"cpu": "4", "memory": "8Gi"}``; ``None`` or ``{}`` clears one); they apply to the draft
    side only. Raises ``WhatIfError`` naming the bad field; nothing is written either way.
    """
    started = time.perf_counter()
    report_progress = progress or (lambda _fraction, _text: None)
    row = SchedulerConfiguration.objects.filter(is_active=True).first()
    active_text = row.text if row is not None else ""
    active_label = f"v{row.version}" if row is not None else "default"
    draft_text = active_text if draft_conf_text is None else draft_conf_text
    try:
        load_conf(draft_text)
    except EngineError as exc:
        raise WhatIfError(f"draft.{exc.field}" if getattr(exc, "field", "") else "draft",
                          str(exc)) from exc  # fmt: skip
    changes = {name: dict(c) for name, c in (queue_changes or {}).items()}
    report_progress(0.05, "reading the cluster snapshot")
    # The worker's clock (``run_once``): the simulated one, so time-dependent plugins and the
    # snapshot's ``now`` are what the next session sees.
    taken_at = now or failpoints.now()
    for_active, for_draft = _read_two(taken_at)
    for_draft.queues = _changed_queues(for_draft.queues, changes)
    record = _Pristine(for_active)
    report_progress(0.25, f"running the {active_label} configuration")
    active = _run_side(active_label, active_text, for_active)
    pristine = record.restore()
    report_progress(0.6, "running the draft")
    draft = _run_side("draft", draft_text, for_draft)
    report_progress(1.0, "done")
    waiting = set(active.pending) | set(draft.pending) | set(active.line) | set(draft.line)
    return WhatIfReport(
        job_names=_job_names(waiting),
        active=active,
        draft=draft,
        taken_at=taken_at,
        node_count=len(pristine.nodes),
        job_count=len(pristine.jobs),
        pod_count=sum(len(j.tasks) for j in pristine.jobs.values()),
        seconds=time.perf_counter() - started,
        queue_changes=changes,
        snapshot=pristine,
    )
