"""The scheduler worker: ``run_once`` is one scheduling cycle; ``EmbeddedWorker`` repeats it.

Volcano's counterpart: ``pkg/scheduler/scheduler.go`` (``runOnce`` every ``schedulePeriod``) plus
the controller-manager's sync loop, which here runs first in the same cycle. The worker imports
no app: it runs what the apps registered in ``kube.registry`` (controllers, node runtimes,
after-session hooks, start-up chores). One cycle, in order:

1. The registered controllers reconcile, in their order (the job controller: Jobs → PodGroups
   and Pods, phases, policies, Commands; then the training operator's).
2. The cache reads one consistent snapshot.
3. The engine runs the active configuration's actions and plugins on it.
4. The cache writes the decisions in one transaction, refusing stale rows (a bind that fails,
   there or already in the session, leaves its pod ``PodScheduled=False`` reason
   ``SchedulerError`` and is retried next session; on PostgreSQL a
   session's binds are sent in batches while step 3 still runs, in that same transaction).
   Then the shares (``scheduler.queue_status``) and each node's load (``scheduler.load_status``)
   the session ends with are stored for the pages.
5. The session is recorded (``SessionRecord``, kept at most ``VOLCANO_SESSION_RETENTION``
   records and ``VOLCANO_SESSION_TTL`` seconds, ``retention``) and its metrics stored; the
   after-session hooks get a ``SessionReport`` (the monitoring app adds the session's sample to
   the history: queues, DRF shares, latencies, counts, built here by
   ``scheduler.session_sample``; every node's load at most once per
   ``VOLCANO_HISTORY_NODE_PERIOD``).

On SQLite the write-ahead log is checkpointed after step 5, not inside step 4's commit
(``cache.wal``).

After the cycle, at most once per ``VOLCANO_CHANGE_PRUNE_PERIOD`` (default 60 s), the leader
deletes the watch change stream's events older than ``VOLCANO_CHANGE_RETENTION`` (default 900 s,
etcd's default compaction interval, so watches from older versions get 410 Expired and relist).
In the same pass each after-session hook does its housekeeping (the history, at most once per
``VOLCANO_HISTORY_COMPACT_PERIOD``, default 60 s, is rolled up into its coarser tiers and
pruned: ``monitoring.recorder``).

Two ways to run it, one code path: ``EmbeddedWorker`` is a thread in the server process (``make
run``) that also ticks the registered node runtimes (the simulated kubelet) each period; in the
distributed mode Celery beat sends ``scheduler.tasks.schedule`` every period and whichever worker
holds the lease runs the cycle (``run_leader_cycle``). A controller that fails fails its cycle
(recorded, the next period tries again); a failing hook, runtime or start-up chore is logged and
the cycle goes on.

In the distributed mode step 1 is not part of the cycle: the leading worker process runs the
controllers in a thread of their own (``ControllerLoop``, Volcano's controller-manager beside its
scheduler), a pass every period while it holds the lease, and the cycle is steps 2-5 only: at
XL, with the API creating jobs faster than a pass reconciles them, a pass took tens of seconds
and every session waited for it (``bench/PROFILE.md``). Beside it, a session reads whatever the
controllers have committed, and its record and latency are the session's own. A pass that
raises is logged and the next period tries again; its duration goes to the metrics with the
next session's.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from kube import failpoints, registry
from kube.changes import latest_resource_version, prune_changes
from kube.registry import SessionHook, SessionReport
from scheduler.active_conf import active_conf
from scheduler.cache import ApplyResult, BindPipeline, Snapshot, apply_decisions, read_snapshot
from scheduler.cache.bind_pipeline import DEFAULT_BATCH
from scheduler.cache.binds import session_binder
from scheduler.cache.row_cache import RowCache
from scheduler.cache.wal import checkpoint_after
from scheduler.engine import run_session
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework.decisions import Decisions
from scheduler.engine.framework.memory import PluginMemory
from scheduler.engine.util.gc_pause import no_automatic_gc
from scheduler.heartbeat import beat, note_reconciled
from scheduler.leader import Lease, make_lease
from scheduler.load_status import NodeLoads, session_loads, store_node_loads
from scheduler.metrics import MetricsState, load_state, save_state
from scheduler.metrics_session import CONTROLLERS, STORE_HOST, observe_session
from scheduler.models import SchedulerConfiguration, SessionRecord
from scheduler.queue_status import store_shares
from scheduler.retention import prune_expired
from scheduler.session_sample import DrfSampler, build_sample, top_jobs

__all__ = [
    "ControllerLoop",
    "EmbeddedWorker",
    "SessionSummary",
    "prune_change_stream",
    "reconcile_controllers",
    "run_controller_pass",
    "run_leader_cycle",
    "run_once",
    "run_startup_hooks",
    "schedule_period",
    "tick_runtimes",
]

logger = logging.getLogger(__name__)

# What plugins remember from one session to the next while this process schedules (tdm's last
# eviction time), as Volcano keeps it in package variables for the life of its process.
_PLUGIN_MEMORY = PluginMemory()
# The rows the last session read, brought up to date from the change stream at the next one
# (``cache.row_cache``): a cluster that changed little is not read whole every period.
_ROWS = RowCache()
# The durations of the controller passes run beside the sessions (``ControllerLoop``) since the
# last session stored its metrics: that session observes them (one writer of the metrics state).
_PASSES: list[float] = []
_PASSES_LOCK = threading.Lock()
_PASSES_KEPT = 1000  # while sessions fail, the newest passes only
# The metrics ``observe_session`` writes a controller pass under (client-go's request metrics).
REQUEST_SECONDS = "rest_client_request_duration_seconds"
REQUESTS = "rest_client_requests_total"


def _number(name: str, default: float) -> float:
    value = getattr(settings, name, None) or os.environ.get(name)
    return default if value is None or value == "" else float(value)


def schedule_period() -> float:
    """Return seconds between sessions (``VOLCANO_SCHEDULE_PERIOD``, default 1, Volcano's)."""
    return max(_number("VOLCANO_SCHEDULE_PERIOD", 1.0), 0.05)


def bind_batch() -> int:
    """Return binds per batch sent while the session runs (``VOLCANO_BIND_BATCH``; 0: off)."""
    return max(int(_number("VOLCANO_BIND_BATCH", DEFAULT_BATCH)), 0)


@dataclass(slots=True)
class SessionSummary:
    """What one cycle did (``record`` is None when recording was off)."""

    record: SessionRecord | None
    decisions: Decisions | None
    applied: ApplyResult | None
    error: str = ""


def reconcile_controllers(now: datetime) -> None:
    """Run the registered controllers in their order (the job controller's, then the training
    operator's); the first that raises fails the cycle.

    Once all have run, the newest change they had all seen (taken before the first began) is
    stored for the health page, with each one's duration (``scheduler.heartbeat``).
    """
    through = latest_resource_version()
    durations: dict[str, float] = {}
    for controller in registry.controllers():
        began = time.perf_counter()
        controller.reconcile(now)
        durations[controller.name] = (time.perf_counter() - began) * 1000
    try:
        note_reconciled(through, timezone.now(), durations)
    except Exception:  # figures are never worth a lost session
        logger.exception("could not store the controllers' progress")


def run_startup_hooks() -> None:
    """Run the apps' start-up chores (Volcano's scheduler creates its built-in queues when it
    starts); one that fails is logged and the loop still starts (the next start tries again)."""
    for hook in registry.startup_hooks():
        try:
            hook()
        except Exception:
            logger.exception("start-up hook %s failed", _name(hook))


def tick_runtimes() -> None:
    """Tick each registered node runtime once (the simulated kubelet); a failure is logged."""
    for tick in registry.runtimes():
        try:
            tick()
        except Exception:  # the cycle still runs: the pods move on at the next tick
            logger.exception("node runtime %s failed", _name(tick))


def _name(hook: Callable[..., object]) -> str:
    return f"{hook.__module__}.{getattr(hook, '__qualname__', repr(hook))}"


def _trim_records() -> None:
    keep = int(_number("VOLCANO_SESSION_RETENTION", 2000))
    cutoff = SessionRecord.objects.order_by("-started_at", "-pk").values_list("pk", flat=True)[
        keep : keep + 1
    ]
    last = list(cutoff)
    if last:
        SessionRecord.objects.filter(pk__lte=last[0]).delete()


def run_once(
    *,
    now: datetime | None = None,
    reconcile: bool = True,
    still_leader: Callable[[], bool] | None = None,
    record: bool = True,
    worker: str = "",
) -> SessionSummary:
    """Run one scheduling cycle (steps 1-5 of the module docstring) and return what it did.

    Automatic garbage collection is held off from the snapshot read to the record (steps 2-5),
    not only inside the read and the engine: the snapshot's objects live until the cycle ends,
    and each time collection came back on between steps, its next young pass walked every one
    of them (10,000 one-pod jobs: about 0.7 s of CPU across the cycle). The snapshot is freed by
    reference counting when ``_cycle`` returns, still inside the pause, so the pass that follows
    sees only what the summary keeps.
    """
    failpoints.refresh()
    now = now or failpoints.now()
    started = time.perf_counter()
    uid = f"session-{uuid.uuid4().hex[:12]}"
    controller_seconds = None
    if reconcile:
        try:
            reconcile_controllers(now)  # 1.
        except Exception as exc:  # recorded, and the next period tries again
            return _failed(uid, now, started, None, exc, record, worker)
        controller_seconds = time.perf_counter() - started
    with no_automatic_gc(), checkpoint_after():  # SQLite's WAL copied after the cycle (wal)
        return _cycle(uid, now, started, still_leader, record, controller_seconds, worker)


def _failed(
    uid: str,
    now: datetime,
    started: float,
    configuration: SchedulerConfiguration | None,
    exc: Exception,
    record: bool,
    worker: str = "",
) -> SessionSummary:
    """Record a cycle that raised; the next period tries again."""
    logger.exception("session %s failed", uid)
    error = f"{type(exc).__name__}: {exc}"
    rec = None
    if record:
        rec = SessionRecord.objects.create(
            started_at=now, configuration=configuration, worker=worker[:200],
            e2e_ms=(time.perf_counter() - started) * 1000, error=error[:5000],
        )  # fmt: skip
    state = load_state()
    state.inc("volcano_schedule_attempts_total", ("error",))
    save_state(state)
    return SessionSummary(rec, None, None, error)


def _cycle(
    uid: str,
    now: datetime,
    started: float,
    still_leader: Callable[[], bool] | None,
    record: bool,
    controller_seconds: float | None = None,
    worker: str = "",
) -> SessionSummary:
    """Steps 2-5 of one cycle."""
    configuration: SchedulerConfiguration | None = None
    hooks = registry.session_hooks() if record else []
    try:
        configuration, conf = active_conf()
        snapshot = read_snapshot(now=now, cache=_ROWS)  # 2.
        # Reads the DRF shares for a hook that keeps the session's sample (the history).
        sampler = DrfSampler(top=top_jobs()) if _sample_wanted(hooks) else None
        # Binds are sent while the engine runs, uncommitted until step 4 ends (bind_pipeline).
        with BindPipeline(snapshot, now=now, batch=bind_batch()) as binds:
            decisions = run_session(
                snapshot.cluster,
                conf,
                uid=uid,
                bind_listener=binds.add,
                binder=session_binder(snapshot),
                report_shares=True,
                observer=sampler,
                memory=_PLUGIN_MEMORY,
            )  # 3.

            def write(binds_written: int | None) -> ApplyResult:  # 4., in the same transaction
                if still_leader is not None and not still_leader():
                    raise RuntimeError(
                        "lost the scheduler lease before writing: decisions discarded"
                    )
                return apply_decisions(
                    snapshot, decisions, now=now, session_uid=uid, binds_written=binds_written
                )

            applied = binds.finish(write)
        if decisions.shares is not None:
            store_shares(decisions.shares, now=now)
        loads = session_loads(snapshot, decisions, applied)
        _store_loads(loads, now)
    except Exception as exc:  # recorded, and the next period tries again
        return _failed(uid, now, started, configuration, exc, record, worker)
    e2e_ms = (time.perf_counter() - started) * 1000
    timings = decisions.timings
    open_ms = (snapshot.read_seconds + timings.opening()) * 1000
    rec = None
    if record:  # 5.
        cluster = snapshot.cluster
        rec = SessionRecord.objects.create(
            started_at=now, configuration=configuration, worker=worker[:200], e2e_ms=e2e_ms,
            open_ms=open_ms,
            apply_ms=applied.seconds * 1000,
            action_ms={name: s * 1000 for name, s in timings.actions.items()},
            plugin_ms=_plugin_ms(decisions), node_count=len(cluster.nodes),
            job_count=len(cluster.jobs),
            pending_task_count=sum(j.count(TaskStatus.PENDING) for j in cluster.jobs.values()),
            binds=applied.bound, evictions=applied.evicted, pipelined=len(decisions.pipelined),
            unschedulable=len(decisions.unschedulable),
        )  # fmt: skip
        _trim_records()
        _after_session(hooks, now, snapshot, decisions, sampler, e2e_ms, applied, loads)
    state = load_state()
    observe_session(state, snapshot=snapshot, decisions=decisions, applied=applied,
                    e2e_ms=e2e_ms, open_ms=open_ms, now=now,
                    controller_seconds=controller_seconds)  # fmt: skip
    _observe_controller_passes(state)
    save_state(state)
    logger.info(
        "session %s: %d bound (%d not written: stale or failed; %d binds failed), %d evicted, "
        "%d unschedulable in %.0f ms (read %.0f %s, write %.0f)", uid, applied.bound,
        len(applied.skipped_binds), len(applied.failed_binds),
        applied.evicted, len(decisions.unschedulable), e2e_ms, snapshot.read_seconds * 1000,
        snapshot.read_stats.mode, applied.seconds * 1000,
    )  # fmt: skip
    return SessionSummary(rec, decisions, applied)


def _observe_controller_passes(state: MetricsState) -> None:
    """Count the controller passes run beside the sessions since the last one, as
    ``observe_session`` counts a pass run in the cycle (one LIST of its duration)."""
    with _PASSES_LOCK:
        passes = _PASSES[:]
        _PASSES.clear()
    if passes:
        state.observe(REQUEST_SECONDS, ("LIST", STORE_HOST, CONTROLLERS), passes)
        state.inc(REQUESTS, ("200", "GET", STORE_HOST, CONTROLLERS), float(len(passes)))


def _plugin_ms(decisions: Decisions) -> dict[str, dict[str, float]]:
    """Return each plugin's milliseconds by hook, as the session record keeps them."""
    timings = decisions.timings
    out: dict[str, dict[str, float]] = {}
    for hook, by_plugin in (("OnSessionOpen", timings.plugins_open),
                            ("OnSessionClose", timings.plugins_close)):  # fmt: skip
        for name, seconds in by_plugin.items():
            out.setdefault(name, {})[hook] = seconds * 1000
    return out


def _sample_wanted(hooks: list[SessionHook]) -> bool:
    """Return whether a hook keeps the session's sample (a failing answer counts as no)."""
    wanted = False
    for hook in hooks:
        try:
            wanted = hook.wants_sample() or wanted
        except Exception:  # figures are never worth a lost session
            logger.exception("session hook %s failed", hook.name)
    return wanted


def _after_session(
    hooks: list[SessionHook],
    now: datetime,
    snapshot: Snapshot,
    decisions: Decisions,
    sampler: DrfSampler | None,
    e2e_ms: float,
    applied: ApplyResult,
    loads: NodeLoads,
) -> None:
    """Hand the session's report to each after-session hook; a failure is logged, the cycle
    goes on (figures are never worth a lost session)."""
    if not hooks:
        return
    sample = None
    if sampler is not None:
        try:
            sample = build_sample(
                cluster=snapshot.cluster, decisions=decisions, job_shares=sampler.shares,
                e2e_ms=e2e_ms, binds=applied.bound, evictions=applied.evicted,
            )  # fmt: skip
        except Exception:
            logger.exception("building the session's sample failed")
    report = SessionReport(now=now, sample=sample, node_loads=loads)
    for hook in hooks:
        try:
            hook.after(report)
        except Exception:
            logger.exception("session hook %s failed", hook.name)


def _store_loads(loads: NodeLoads, now: datetime) -> None:
    """Store the nodes' loads for the pages; a failure is logged (the decisions are written,
    and the pages sum the pods themselves once the stored loads are no longer fresh)."""
    try:
        store_node_loads(loads, now=now)
    except Exception:
        logger.exception("storing the nodes' loads failed")


def _setting(name: str, default: float) -> float:
    """Return a number from settings or the environment, where 0 is a value (not unset)."""
    value = getattr(settings, name, None)
    if value is None or value == "":
        value = os.environ.get(name)
    return default if value is None or value == "" else float(value)


# When this process last pruned the change stream (time.monotonic()), if ever.
_last_prune: float | None = None


def prune_change_stream(*, clock: Callable[[], float] = time.monotonic) -> int | None:
    """Delete change events older than the retention, at most once per prune period.

    Expired Kubernetes Events and session records go in the same pass (``retention``: one hour
    by default, ``VOLCANO_EVENT_TTL`` and ``VOLCANO_SESSION_TTL``). Return how many change events went,
    or None when the period has not passed yet (nothing queried).
    Both ways of running (embedded and Celery) call it from ``run_leader_cycle``, holding
    the lease, so one process prunes at a time.
    """
    global _last_prune
    now = clock()
    period = _setting("VOLCANO_CHANGE_PRUNE_PERIOD", 60.0)
    if _last_prune is not None and now - _last_prune < period:
        return None
    _last_prune = now
    keep = max(int(_setting("VOLCANO_CHANGE_RETENTION", 900.0)), 0)
    deleted = prune_changes(keep_seconds=keep)
    if deleted:
        logger.info("pruned %d change events older than %d s", deleted, keep)
    prune_expired(failpoints.now())
    return deleted


def run_leader_cycle(
    lease: Lease, *, tick_runtime: bool = False, reconcile: bool = True
) -> SessionSummary | None:
    """Run one cycle if ``lease`` is ours (taking it if free); None when another holds it.

    ``reconcile``: False when the controllers run beside the cycle (``ControllerLoop``).
    """
    if not lease.acquire():
        return None
    if tick_runtime:
        tick_runtimes()
    summary = run_once(reconcile=reconcile, still_leader=lease.acquire, worker=lease.holder)
    try:
        prune_change_stream()
    except Exception:  # housekeeping: the next period tries again
        logger.exception("pruning the change stream failed")
    now = failpoints.now()
    for hook in registry.session_hooks():
        if hook.housekeeping is None:
            continue
        try:
            hook.housekeeping(now)
        except Exception:  # housekeeping: the next period tries again
            logger.exception("housekeeping of session hook %s failed", hook.name)
    return summary


class EmbeddedWorker(threading.Thread):
    """The scheduler loop inside the server process: node runtimes' tick + cycle every period."""

    def __init__(self, *, period: float | None = None, lease: Lease | None = None) -> None:
        super().__init__(name="volcano-scheduler", daemon=True)
        self.period = period or schedule_period()
        self.lease = lease or make_lease(ttl=max(5 * self.period, 3.0))
        self.stopping = threading.Event()
        self.cycles = 0

    def run(self) -> None:
        """Loop until ``stop()``; a failing cycle is logged and the loop goes on."""
        logger.info("embedded scheduler started (period %.2fs, %s)", self.period, self.lease.holder)
        try:
            run_startup_hooks()
            while not self.stopping.is_set():
                began = time.monotonic()
                close_old_connections()
                try:
                    summary = run_leader_cycle(self.lease, tick_runtime=True)
                    self.cycles += 1
                    self._beat(leading=summary is not None)
                except Exception:
                    logger.exception("scheduler cycle failed")
                self.stopping.wait(max(self.period - (time.monotonic() - began), 0.0))
        finally:
            try:
                self.lease.release()
            except Exception:
                logger.exception("could not release the scheduler lease")
            connection.close()
            logger.info("embedded scheduler stopped")

    def _beat(self, *, leading: bool) -> None:
        """Tell the health page this loop is alive (a failure is logged, the loop goes on)."""
        try:
            beat(self.lease.holder, leading=leading, mode="embedded")
        except Exception:
            logger.exception("could not record the scheduler's heartbeat")

    def stop(self, timeout: float = 30.0) -> None:
        """Ask the loop to finish its cycle and wait for it."""
        self.stopping.set()
        if self.is_alive():
            self.join(timeout)


def run_controller_pass(lease: Lease) -> bool:
    """Run the registered controllers once if ``lease`` is ours; return whether they ran.

    A controller that raises ends the pass (the exception propagates, as in the cycle); the
    duration of a pass that ran to the end is observed with the next session's metrics.
    """
    if not lease.acquire():
        return False
    failpoints.refresh()
    began = time.perf_counter()
    reconcile_controllers(failpoints.now())
    with _PASSES_LOCK:
        _PASSES.append(time.perf_counter() - began)
        del _PASSES[:-_PASSES_KEPT]
    return True


class ControllerLoop(threading.Thread):
    """The controllers beside the sessions: a pass every period while ``lease`` is held.

    Volcano runs its controllers in their own process (the controller-manager), so a slow
    controller pass never delays a session; here the leading Celery worker process runs them in
    this thread, on a database connection of its own. A pass that takes longer than the period
    is followed by the next at once; one that raises is logged and the next period tries again.
    """

    def __init__(self, lease: Lease, *, period: float | None = None) -> None:
        super().__init__(name="volcano-controllers", daemon=True)
        self.lease = lease
        self.period = period or schedule_period()
        self.stopping = threading.Event()
        self.passes = 0

    def run(self) -> None:
        """Loop until ``stop()``."""
        try:
            while not self.stopping.is_set():
                began = time.monotonic()
                close_old_connections()
                try:
                    self.passes += run_controller_pass(self.lease)
                except Exception:  # the next period tries again
                    logger.exception("controller pass failed")
                self.stopping.wait(max(self.period - (time.monotonic() - began), 0.0))
        finally:
            connection.close()

    def stop(self, timeout: float = 30.0) -> None:
        """Ask the loop to finish its pass and wait for it."""
        self.stopping.set()
        if self.is_alive():
            self.join(timeout)
