"""What one session adds to the metrics state (Volcano's producers, one function).

Volcano's counterparts, by metric: ``scheduler.go`` (e2e latency), ``framework.go`` (open session,
plugin latency), each action (action latency, job and task latency), ``preempt`` (victims,
attempts), ``preempt``/``reclaim``/``gangpreempt``/``gangreclaim`` (eviction transactions: one
per committed statement that evicts, by its action; shuffle's are not counted, as in Volcano),
``gang`` (unschedulable tasks and jobs), ``drf`` (job share). Called by the worker after a session's decisions were written, with what was accepted.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import numpy as np

from scheduler.cache import ApplyResult, Snapshot
from scheduler.engine.api.types import ALLOCATED_STATUSES, TaskStatus
from scheduler.engine.framework.decisions import Decisions
from scheduler.metrics import MetricsState, forget_deleted_jobs

__all__ = ["observe_session"]


PREEMPT = "preempt"
# The actions Volcano's ``RegisterEvictionTransaction`` counts; it ignores any other (shuffle
# among them) "to keep the action label cardinality bounded".
EVICTION_TRANSACTION_ACTIONS = frozenset({PREEMPT, "reclaim", "gangpreempt", "gangreclaim"})


def _ms_since(now: datetime, then: datetime | None) -> float | None:
    return None if then is None else max((now - then).total_seconds() * 1000, 0.0)


def observe_session(
    state: MetricsState,
    *,
    snapshot: Snapshot,
    decisions: Decisions,
    applied: ApplyResult,
    e2e_ms: float,
    open_ms: float,
    now: datetime,
    controller_seconds: float | None = None,
) -> None:
    """Add one session's figures to ``state`` (and the controller pass before it, if timed).

    ``now`` is when the session began, before the controllers ran: a job they made in this
    session (its PodGroup) is younger than ``now``. Placements are timed at the session's end
    (``now`` plus ``e2e_ms``), as Volcano's actions take ``time.Now()`` when they place a task,
    so a job scheduled in its first session reports the real creation-to-placement time,
    not 0.
    """
    cluster = snapshot.cluster
    placed = now + timedelta(milliseconds=e2e_ms)
    # 1. Latencies of the session, its actions and its plugins.
    state.observe("volcano_e2e_scheduling_latency_milliseconds", (), [e2e_ms])
    state.observe("volcano_open_session_duration_milliseconds", (), [open_ms])
    timings = decisions.timings
    for name, seconds in timings.actions.items():
        state.observe("volcano_action_scheduling_latency_milliseconds", (name,), [seconds * 1000])
    for hook, by_plugin in (("OnSessionOpen", timings.plugins_open),
                            ("OnSessionClose", timings.plugins_close)):  # fmt: skip
        for name, seconds in by_plugin.items():
            state.observe("volcano_plugin_scheduling_latency_milliseconds", (name, hook),
                          [seconds * 1000])  # fmt: skip
    state.observe("volcano_scheduling_stage_duration_milliseconds", ("Bind",),
                  [applied.seconds * 1000])  # fmt: skip
    state.observe("volcano_worker_scheduling_cycle_duration_milliseconds", (), [e2e_ms])
    state.observe("volcano_update_snapshot_duration_milliseconds", (),
                  [snapshot.read_seconds * 1000])  # fmt: skip
    _observe_watched(state, snapshot, now)
    # 2. Tasks bound and jobs that became ready in this session.
    skipped = set(applied.skipped_binds)
    bound_per_job: Counter[str] = Counter()
    task_ms: list[float] = []
    for task_uid in decisions.binds:
        if task_uid in skipped:
            continue
        row = snapshot.pods.get(task_uid)
        if row is None:
            continue
        bound_per_job[row.job] += 1
        task = cluster.jobs[row.job].tasks.get(task_uid) if row.job in cluster.jobs else None
        ms = _ms_since(placed, task.creation_timestamp if task else None)
        if ms is not None:
            task_ms.append(ms)
    # Assumed: the session chose the node; PreBound and Bound: the bind was written.
    write_ms = applied.seconds * 1000
    state.observe("volcano_task_scheduling_latency_milliseconds", ("Assumed",), task_ms)
    for stage in ("PreBound", "Bound"):
        state.observe("volcano_task_scheduling_latency_milliseconds", (stage,),
                      [ms + write_ms for ms in task_ms])  # fmt: skip
    state.inc("volcano_schedule_attempts_total", ("scheduled",), float(len(task_ms)))
    for uid, bound in bound_per_job.items():
        job = cluster.jobs.get(uid)
        ms = _ms_since(placed, job.creation_timestamp) if job is not None else None
        if job is None or ms is None:
            continue
        ready = job.ready_task_num()
        if ready - bound < job.min_available <= ready:  # the job became ready: once per job
            state.observe("volcano_e2e_job_scheduling_latency_milliseconds", (), [ms])
        # As Volcano's allocate and backfill do on every task they place: creation to the
        # job's latest placement, so an elastic job's figure grows as its tasks come up.
        labels = (job.name, job.queue, job.namespace)
        state.set_gauge("volcano_e2e_job_scheduling_duration", labels, ms)
        if job.creation_timestamp is not None:
            state.set_gauge("volcano_e2e_job_scheduling_start_time", labels,
                            job.creation_timestamp.timestamp())  # fmt: skip
        state.set_gauge("volcano_e2e_job_scheduling_last_time", labels, placed.timestamp())
    shares = _job_shares(snapshot)
    _start_times(state, snapshot, shares)
    for name in ("duration", "start_time", "last_time"):
        state.trim_gauge(f"volcano_e2e_job_scheduling_{name}")
    # 3. Evictions by the action that chose them (each eviction names its action).
    victims = 0
    preemptors: set[str] = set()
    for eviction in decisions.evictions:
        if eviction.task in applied.skipped_evictions or eviction.action != PREEMPT:
            continue
        victims += 1
        if eviction.preemptor:
            preemptors.add(eviction.preemptor)
    state.set_gauge("volcano_pod_preemption_victims", (), float(victims))
    state.inc("volcano_total_preemption_attempts", (), float(len(preemptors)))
    for action in decisions.eviction_transactions:
        if action in EVICTION_TRANSACTION_ACTIONS:
            state.inc("volcano_eviction_transactions_total", (action,))
    # 4. Unschedulable tasks and jobs (gauges: this session's view only).
    unschedulable_tasks: dict[tuple[str, ...], float] = {}
    for uid in decisions.unschedulable:
        job = cluster.jobs.get(uid)
        if job is not None:
            unschedulable_tasks[(job.name,)] = float(job.count(TaskStatus.PENDING))
    state.replace_gauge("volcano_unschedule_task_count", unschedulable_tasks)
    state.set_gauge("volcano_unschedule_job_count", (), float(len(decisions.unschedulable)))
    state.inc("volcano_schedule_attempts_total", ("unschedulable",),
              sum(unschedulable_tasks.values()))  # fmt: skip
    # 5. DRF dominant share of every job holding resources.
    state.replace_gauge("volcano_job_share", shares)
    # Volcano's cache drops a deleted job's series (DeleteJobMetrics); the snapshot's jobs exist.
    forget_deleted_jobs(state, {(job.namespace, job.name) for job in cluster.jobs.values()})
    # 6. The requests the scheduler and the controller make of the cluster's store.
    _observe_requests(state, snapshot, decisions, applied, controller_seconds)


def _start_times(
    state: MetricsState, snapshot: Snapshot, shares: dict[tuple[str, ...], float]
) -> None:
    """Set the start time of every job holding resources, as Volcano's cache sets it for each
    PodGroup it holds (``setPodGroup``); set last, so trimming keeps them. A job's share names
    no queue; this series does, so a Prometheus reader joins the two (``monitoring.promql``)."""
    for job in snapshot.cluster.jobs.values():
        if (job.namespace, job.name) in shares and job.creation_timestamp is not None:
            state.set_gauge("volcano_e2e_job_scheduling_start_time",
                            (job.name, job.queue, job.namespace),
                            job.creation_timestamp.timestamp())  # fmt: skip


def _job_shares(snapshot: Snapshot) -> dict[tuple[str, ...], float]:
    cluster = snapshot.cluster
    total = cluster.arrays.allocatable.sum(axis=0).astype(np.float64)
    columns = [i for i, name in enumerate(cluster.resource_index.names) if name != "pods"]
    if not columns:
        return {}
    total = total[columns]
    shares: dict[tuple[str, ...], float] = {}
    for job in cluster.jobs.values():
        vectors = [
            t.resreq_vec for t in job.tasks_in(*ALLOCATED_STATUSES) if t.resreq_vec is not None
        ]
        if not vectors:
            continue
        used = np.sum(vectors, axis=0)[columns].astype(np.float64)
        ratio = np.divide(used, total, out=np.zeros_like(used), where=total > 0)
        shares[(job.namespace, job.name)] = float(ratio.max(initial=0.0))
    return shares


def _observe_watched(state: MetricsState, snapshot: Snapshot, now: datetime) -> None:
    """Observe stage ``Watched`` once per pod: creation to the first session that saw it.

    Volcano's cache sees a pod when its watch event arrives; ours reads the pod in the next
    session's snapshot, so a pod created since the previous session is "watched" now. A pod
    created after the session's own time (while it ran) is left to the next session, which
    counts it (counting it now too would count it twice).
    """
    seen_until = state.data.get("watched_until")
    watched: list[float] = []
    for job in snapshot.cluster.jobs.values():
        for task in job.tasks.values():
            created = task.creation_timestamp
            if created is None or task.status != TaskStatus.PENDING:
                continue
            if created > now:  # created after this session began: the next one sees it
                continue
            if seen_until is None or created.timestamp() > seen_until:
                ms = _ms_since(now, created)
                if ms is not None:
                    watched.append(ms)
    state.observe("volcano_task_scheduling_latency_milliseconds", ("Watched",), watched)
    state.data["watched_until"] = now.timestamp()


SCHEDULER = "volcano-scheduler-service"
CONTROLLERS = "volcano-controllers-service"
STORE_HOST = "store"


def _observe_requests(
    state: MetricsState,
    snapshot: Snapshot,
    decisions: Decisions,
    applied: ApplyResult,
    controller_seconds: float | None,
) -> None:
    """Count the session's reads and writes as client-go counts a component's API requests.

    Volcano's scheduler lists and watches through client-go, then POSTs bindings, DELETEs
    victims and PUTs PodGroup status; Volcano's benchmark dashboard plots those per component
    (``kubernetes_name``). Ours read and write the database directly, so the same acts are
    counted under the verb the Kubernetes API would have used (host ``store``): one LIST per
    snapshot (its read time), one request per object written, each timed at the write
    transaction's mean per object; the job controller's pass is one LIST of its duration.
    """
    duration = "rest_client_request_duration_seconds"
    total = "rest_client_requests_total"
    state.observe(duration, ("LIST", STORE_HOST, SCHEDULER), [snapshot.read_seconds])
    state.inc(total, ("200", "GET", STORE_HOST, SCHEDULER))
    writes = {"POST": applied.bound, "DELETE": applied.evicted,
              "PUT": len(decisions.pod_group_phases)}  # fmt: skip
    objects = sum(writes.values())
    for verb, n in writes.items():
        if n:
            state.observe(duration, (verb, STORE_HOST, SCHEDULER), [applied.seconds / objects] * n)
            state.inc(total, ("200", verb, STORE_HOST, SCHEDULER), float(n))
    if controller_seconds is not None:
        state.observe(duration, ("LIST", STORE_HOST, CONTROLLERS), [controller_seconds])
        state.inc(total, ("200", "GET", STORE_HOST, CONTROLLERS))
