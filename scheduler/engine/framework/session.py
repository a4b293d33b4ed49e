"""Session: one scheduling cycle over one snapshot, with the plugins the conf enables.

Volcano's counterpart: ``pkg/scheduler/framework/session.go`` and ``framework.go``.

Lifecycle (``run_session`` does all of it):
  1. ``open_session(cluster, conf)`` builds one fresh instance per plugin entry of the conf, with
     its validated ``Arguments``, and calls ``plugin.on_session_open(ssn)`` in conf order.
  2. Each action of ``conf.actions`` runs once, in order: ``action.execute(ssn)``.
  3. ``close_session(ssn)`` calls every ``plugin.on_session_close(ssn)``, then the job updater
     writes PodGroup phases and conditions into ``ssn.decisions``.

How a plugin registers: in ``on_session_open`` it calls the ``ssn.add_*_fn(self.name, fn)``
registrars listed (with signatures and combining rules) in ``framework/registrars.py`` and
``ssn.add_event_handler(EventHandler(...))``. How a plugin declares its arguments: the
``arguments_schema`` class attribute, see ``framework/interface.py`` and ``framework/arguments.py``.

State changes go through four primitives (``place_task``, ``unplace_task``, ``evict_task``,
``unevict_task``), used by ``Statement`` (and by ``allocate_and_bind`` for backfill); they keep job
status indexes, node arrays and plugin accounting (event handlers) in step. ``bind_task`` and
``record_eviction`` turn operations into ``Decisions``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.api.types import PodGroupCondition, TaskStatus
from scheduler.engine.framework.arguments import Arguments
from scheduler.engine.framework.decisions import Decisions, Eviction, PodGroupEvent
from scheduler.engine.framework.interface import Event, Plugin
from scheduler.engine.framework.job_updater import update_jobs
from scheduler.engine.framework.memory import PluginMemory
from scheduler.engine.framework.registry import get_action, get_plugin_class
from scheduler.engine.framework.session_plugins import SessionPlugins
from scheduler.engine.framework.statement import Statement
from scheduler.engine.framework.topology import open_topology, record_allocated_hypernodes
from scheduler.engine.util.gc_pause import no_automatic_gc
from scheduler.engine.util.quota import forget_job_amounts

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scheduler.engine.api.hypernode import HyperNodeTree
    from scheduler.engine.conf import SchedulerConf

__all__ = [
    "BindListener",
    "Binder",
    "Session",
    "SessionObserver",
    "close_session",
    "open_session",
    "run_session",
]

# Told of each bind as it is decided: ``(task uid, node name)``. Volcano's allocate hands a
# committed job's binds to the cache, which sends them to the API server while the session goes
# on; a listener lets our cache do the same (``scheduler/cache/bind_pipeline.py``). A bind is
# final once made: nothing later in the session takes it back (victims are Bound or Running).
BindListener = Callable[[str, str], None]

# Binds one task: ``(task uid, node name)`` → why the bind failed, or None once it took.
# Volcano's ``Binder.Bind``, whose failed binds the cache marks ``SchedulerError`` and resyncs;
# here the session learns of a failure at once, so it releases the task's room on the node
# (the task is Pending again, ``Decisions.bind_errors`` says why) and later jobs of the same
# session may take it. A failed task is not tried again in this session: the next one retries.
Binder = Callable[[str, str], str | None]

# Looks at the session right after its plugins opened and right before they close (the
# what-if reads each queue's waiting line, deserved and allocated share there). It may read the
# session; it must not change it, so observed and unobserved runs decide the same.
SessionObserver = Callable[["Session", str], None]

logger = logging.getLogger(__name__)


class Session(SessionPlugins):
    """The state of one scheduling cycle and the hooks its plugins registered."""

    def __init__(
        self,
        cluster: ClusterInfo,
        conf: SchedulerConf,
        *,
        uid: str = "session",
        bind_listener: BindListener | None = None,
        binder: Binder | None = None,
        memory: PluginMemory | None = None,
    ) -> None:
        self.uid = uid
        self.bind_listener = bind_listener
        self.binder = binder
        self.cluster = cluster
        self.conf = conf
        self.now = cluster.now
        self.jobs = cluster.jobs
        self.nodes = cluster.nodes
        self.node_list = cluster.node_list
        self.queues = cluster.queues
        self.arrays = cluster.arrays
        self.resource_index = cluster.resource_index
        self.plugins: dict[str, Plugin] = {}
        self.decisions = Decisions()
        # Rows recorded UnschedulableAndUnresolvable per task uid by allocate (preempt skips them).
        self.unresolvable_nodes: dict[str, set[str]] = {}
        # Any state plugins or actions share within the session (e.g. a node-score cache).
        self.scratch: dict[str, object] = {}
        # What plugins remember across sessions (``framework/memory.py``); fresh unless given.
        self.memory = memory if memory is not None else PluginMemory()
        self.memory.note_session(self.now)  # the first one stands for the scheduler's start
        # True while preempt's topology-aware mode tries victim sets: plugin state that Volcano
        # keeps in the cycle state (inter-pod affinity) then changes only through the
        # SimulateAddTask/SimulateRemoveTask hooks, not through the statements' events.
        self.simulating = False
        # The HyperNode tree (``framework/topology.py``); None for a cluster without HyperNodes
        # whose jobs carry no networkTopology.
        self.hypernodes: HyperNodeTree | None = None
        self._init_hooks()

    def release(self) -> None:
        """Drop every reference the session and its plugins hold, once its decisions are out.

        Why: each plugin keeps the session and the session keeps the plugins' hooks, a cycle
        through which the whole snapshot stays reachable (about 200,000 objects for 10,000
        one-pod jobs). Only the cyclic collector could free it, by walking all of it (0.1-0.2 s);
        broken here, reference counting frees the snapshot as soon as the caller drops it. The
        session is unusable afterwards.
        """
        for plugin in self.plugins.values():
            state = getattr(plugin, "__dict__", None)
            if state is not None:
                state.clear()
        self.__dict__.clear()

    def templates(self) -> list[TaskTemplate]:
        """Return the distinct pod templates (by identity) of the session's jobs' tasks.

        Computed once and shared: plugins that look for pods with inter-pod rules or host ports
        ask at open, and 10,000 one-pod jobs usually share a handful of templates.
        """
        found = self.scratch.get("templates")
        if isinstance(found, list):
            return found
        seen: dict[int, TaskTemplate] = {}
        for job in self.jobs.values():
            for task in job.tasks.values():
                template = task.template
                if id(template) not in seen:
                    seen[id(template)] = template
        templates = list(seen.values())
        self.scratch["templates"] = templates
        return templates

    # --- configuration -----------------------------------------------------------------------
    def action_arguments(self, action: str) -> Arguments:
        """Return the ``configurations`` arguments of ``action`` (schema defaults filled in)."""
        given = self.conf.configurations.get(action)
        if given is not None:
            return given
        registered = get_action(action)
        return Arguments(schema=registered.arguments_schema if registered else ())

    def statement(self) -> Statement:
        """Return a new, empty statement on this session."""
        return Statement(self)

    # --- node cache invalidation --------------------------------------------------------------
    def touch_nodes(self, rows: Iterable[int] | None) -> None:
        """Mark node rows (all when None) as changed, so cached masks and scores are recomputed."""
        if rows is None:
            self.arrays.epoch += 1
        else:
            self.arrays.changes.extend(rows)

    # --- state primitives ----------------------------------------------------------------------
    def _fire(self, task: TaskInfo, *, allocate: bool) -> None:
        event = Event(task)
        for handler in self.event_handlers:
            fn = handler.allocate_func if allocate else handler.deallocate_func
            if fn is not None:
                fn(event)

    def place_task(self, task: TaskInfo, node: NodeInfo, status: TaskStatus) -> None:
        """Put a Pending task on ``node`` as Allocated or Pipelined."""
        job = self.jobs[task.job]
        job.update_task_status(task, status)
        node.add_task(task)
        event = Event(task)  # ``_fire(task, allocate=True)``, inlined (once per placed pod)
        for handler in self.event_handlers:
            fn = handler.allocate_func
            if fn is not None:
                fn(event)

    def unplace_task(self, task: TaskInfo) -> None:
        """Undo ``place_task``: the task is Pending again and off its node."""
        node = self.nodes.get(task.node_name)
        if node is not None:
            node.remove_task(task)
        self.jobs[task.job].update_task_status(task, TaskStatus.PENDING)
        # Handlers learn which node the task left (Volcano clears NodeName after them).
        self._fire(task, allocate=False)
        task.node_name = ""

    def evict_task(self, task: TaskInfo) -> None:
        """Mark a task on a node Releasing: its request becomes future idle on the node."""
        node = self.nodes[task.node_name]
        node.remove_task(task)
        self.jobs[task.job].update_task_status(task, TaskStatus.RELEASING)
        node.add_task(task)
        self._fire(task, allocate=False)

    def unevict_task(self, task: TaskInfo, previous: TaskStatus) -> None:
        """Undo ``evict_task``: back to ``previous`` on the same node."""
        node = self.nodes[task.node_name]
        node.remove_task(task)
        self.jobs[task.job].update_task_status(task, previous)
        node.add_task(task)
        self._fire(task, allocate=True)

    def bind_task(self, task: TaskInfo) -> None:
        """Turn an Allocated task into a bind decision (status Binding), if the bind takes.

        A bind the ``binder`` refuses releases the task's room instead (``unplace_task``) and
        records why in ``decisions.bind_errors``.
        """
        if self.binder is not None:
            error = self.binder(task.uid, task.node_name)
            if error is not None:
                self.decisions.bind_errors[task.uid] = (task.node_name, error)
                self.unplace_task(task)
                return
        self.jobs[task.job].update_task_status(task, TaskStatus.BINDING)
        self.decisions.binds[task.uid] = task.node_name
        if self.bind_listener is not None:
            self.bind_listener(task.uid, task.node_name)

    def record_eviction(
        self, task: TaskInfo, node: str, reason: str, preemptor: str, plugin: str = ""
    ) -> None:
        """Add an eviction decision."""
        self.decisions.evictions.append(Eviction(task.uid, node, reason, preemptor, plugin))

    def record_pod_group_event(
        self, job_uid: str, event_type: str, reason: str, message: str
    ) -> None:
        """Record an event on a PodGroup (Volcano's ``RecordPodGroupEvent``)."""
        event = PodGroupEvent(event_type, reason, message)
        self.decisions.pod_group_events.setdefault(job_uid, []).append(event)

    def allocate_and_bind(self, task: TaskInfo, node: NodeInfo) -> None:
        """Allocate ``task`` outside any statement; bind the job's allocated tasks once ready.

        Volcano's ``Session.Allocate``, used by backfill.
        """
        self.place_task(task, node, TaskStatus.ALLOCATED)
        job = self.jobs[task.job]
        if self.job_ready(job):
            for ready in sorted(job.tasks_in(TaskStatus.ALLOCATED), key=lambda t: t.uid):
                self.bind_task(ready)


def open_session(
    cluster: ClusterInfo,
    conf: SchedulerConf,
    *,
    uid: str = "session",
    bind_listener: BindListener | None = None,
    binder: Binder | None = None,
    memory: PluginMemory | None = None,
) -> Session:
    """Return a session on ``cluster`` with every enabled plugin opened, in conf order."""
    ssn = Session(cluster, conf, uid=uid, bind_listener=bind_listener, binder=binder, memory=memory)
    open_topology(ssn)
    for option in conf.plugin_options():
        cls = get_plugin_class(option.name)
        if cls is None:  # load_conf refuses these; a hand-built conf may not
            raise KeyError(f"plugin {option.name!r} is not registered")
        plugin = cls(option.arguments)
        ssn.plugins[option.name] = plugin
        started = time.perf_counter()
        plugin.on_session_open(ssn)
        ssn.decisions.timings.plugins_open[option.name] = time.perf_counter() - started
    forget_job_amounts(ssn)
    _mark_invalid_jobs(ssn)
    return ssn


def _mark_invalid_jobs(ssn: Session) -> None:
    """Stamp Unschedulable with the JobValid reason on invalid jobs (the actions skip them).

    Not on a job invalid only because members are terminating on their nodes: current Volcano
    checks JobValid in each action and stamps nothing for it, so its PodGroup stays Running.
    """
    for job in ssn.jobs.values():
        refusal = ssn.job_valid(job)
        if refusal is not None and not job.releasing_keeps_gang():
            job.conditions.append(
                PodGroupCondition("Unschedulable", "True", refusal.reason, refusal.message, ssn.uid)
            )


def close_session(ssn: Session) -> Decisions:
    """Close plugins, write PodGroup status into the decisions and return them."""

    for name, plugin in ssn.plugins.items():
        started = time.perf_counter()
        plugin.on_session_close(ssn)
        ssn.decisions.timings.plugins_close[name] = time.perf_counter() - started
    record_allocated_hypernodes(ssn)
    update_jobs(ssn)
    return ssn.decisions


def run_session(
    cluster: ClusterInfo,
    conf: SchedulerConf,
    *,
    uid: str = "session",
    bind_listener: BindListener | None = None,
    report_shares: bool = False,
    observer: SessionObserver | None = None,
    binder: Binder | None = None,
    memory: PluginMemory | None = None,
) -> Decisions:
    """Return the decisions of one full session: open, every action in order, close.

    ``bind_listener``, if given, is told of each bind as it is decided (the decisions still
    hold them all). ``binder``, if given, binds each task as it is decided (``Binder``): a
    refused bind is not a decision but a ``bind_errors`` entry. ``report_shares`` also reads every queue's share after the plugins opened
    (``Decisions.shares``), before any action changes the allocation. ``observer``, if given,
    is called as ``observer(ssn, "opened")`` after the plugins open and
    ``observer(ssn, "closing")`` after the last action. ``memory``, if given, is what plugins
    remembered from earlier sessions (``PluginMemory``; the live worker keeps one), else the
    session starts with none, as a scheduler's first session. Automatic garbage collection is held
    off while it runs (``no_automatic_gc``).
    """
    with no_automatic_gc():
        return _run_session(
            cluster,
            conf,
            uid=uid,
            bind_listener=bind_listener,
            report_shares=report_shares,
            observer=observer,
            binder=binder,
            memory=memory,
        )


def _run_session(
    cluster: ClusterInfo,
    conf: SchedulerConf,
    *,
    uid: str,
    bind_listener: BindListener | None,
    report_shares: bool,
    observer: SessionObserver | None,
    binder: Binder | None = None,
    memory: PluginMemory | None = None,
) -> Decisions:
    started = time.perf_counter()
    ssn = open_session(
        cluster, conf, uid=uid, bind_listener=bind_listener, binder=binder, memory=memory
    )
    if report_shares:
        # The share report opens sessions itself: imported where it is asked for.
        from scheduler.engine.shares import share_report

        began = time.perf_counter()
        ssn.decisions.shares = share_report(ssn)
        ssn.decisions.timings.shares = time.perf_counter() - began
    if observer is not None:
        observer(ssn, "opened")
    for name in conf.actions:
        action = get_action(name)
        if action is None:
            raise KeyError(f"action {name!r} is not registered")
        began = time.perf_counter()
        action.execute(ssn)
        ssn.decisions.timings.actions[name] = time.perf_counter() - began
    if observer is not None:
        observer(ssn, "closing")
    decisions = close_session(ssn)
    ssn.release()
    decisions.timings.session = time.perf_counter() - started
    # Debug: the caller (the worker, simulate) logs the one info line per session with its own
    # figures (database read and write included).
    logger.debug(
        "session %s: %d binds, %d evictions, %d pipelined in %.3fs",
        uid,
        len(decisions.binds),
        len(decisions.evictions),
        len(decisions.pipelined),
        decisions.timings.session,
    )
    return decisions
