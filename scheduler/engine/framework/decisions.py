"""What one session decided: the only output of the engine.

Volcano's counterpart: the side effects of ``Statement.Commit`` and ``JobUpdater`` (bind requests,
evictions, PodGroup status updates). The engine holds no client: it appends here and the caller
(``scheduler/cache.py`` or ``simulate``) applies or prints the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scheduler.engine.api.types import PodGroupCondition, PodGroupPhase

if TYPE_CHECKING:
    from scheduler.engine.shares import ShareReport

__all__ = ["Decisions", "Eviction", "PodGroupEvent", "SessionTimings"]


@dataclass(slots=True, frozen=True)
class Eviction:
    """A pod to delete: who, from where, why, for which pod (preemptor), if any, and the plugin
    that named it when one did (shuffle's victims are named by a victim hook: ``tdm``, ``pdb``).
    """

    task: str
    node: str
    reason: str
    preemptor: str = ""
    plugin: str = ""

    @property
    def action(self) -> str:
        """Return the action that evicts (``preempt``, ``reclaim``): the actions give their
        own name as the reason, so history and metrics can count evictions by action."""
        return self.reason

    @property
    def chosen_by(self) -> str:
        """Return the action, with the plugin that named the victim if one did:
        ``shuffle (tdm)``, ``reclaim``."""
        return f"{self.reason} ({self.plugin})" if self.plugin else self.reason


@dataclass(slots=True, frozen=True)
class PodGroupEvent:
    """An event a plugin records on a PodGroup (Volcano's ``ssn.RecordPodGroupEvent``).

    E.g. resourcequota's ``Normal Unschedulable "resource quota insufficient, ..."`` on a job
    that enqueue leaves Pending: the only place Volcano says why a quota held the job back.
    """

    type: str  # "Normal" or "Warning"
    reason: str
    message: str


@dataclass(slots=True)
class SessionTimings:
    """How long one session's steps took, in seconds (``time.perf_counter`` differences).

    Volcano's counterpart: what ``framework.go`` and ``scheduler.go`` observe into
    ``plugin_scheduling_latency`` (per plugin and ``OnSessionOpen``/``OnSessionClose``),
    ``action_scheduling_latency`` and ``e2e_scheduling_latency``. Read by the worker's session
    record, the metrics and the history sample; the engine's decisions never depend on them.
    """

    session: float = 0.0  # open to close, every action included
    actions: dict[str, float] = field(default_factory=dict)  # action → seconds, in run order
    plugins_open: dict[str, float] = field(default_factory=dict)  # plugin → OnSessionOpen
    plugins_close: dict[str, float] = field(default_factory=dict)  # plugin → OnSessionClose
    shares: float | None = None  # reading every queue's share (``report_shares``), if asked

    def opening(self) -> float:
        """Return the seconds every plugin's ``OnSessionOpen`` took together."""
        return sum(self.plugins_open.values())

    def plugins(self) -> dict[str, float]:
        """Return each plugin's seconds, open and close together, in conf order."""
        total = dict(self.plugins_open)
        for name, seconds in self.plugins_close.items():
            total[name] = total.get(name, 0.0) + seconds
        return total


@dataclass(slots=True)
class Decisions:
    """Binds, evictions, pipelined pods and PodGroup status after one session.

    Keys are ``<namespace>/<name>`` of pods and PodGroups. ``timings`` (``SessionTimings``) is
    measured, so it is left out of equality.
    """

    binds: dict[str, str] = field(default_factory=dict)
    evictions: list[Eviction] = field(default_factory=list)
    pipelined: dict[str, str] = field(default_factory=dict)
    pod_group_phases: dict[str, PodGroupPhase] = field(default_factory=dict)
    pod_group_conditions: dict[str, list[PodGroupCondition]] = field(default_factory=dict)
    unschedulable: dict[str, str] = field(default_factory=dict)
    task_fit_errors: dict[str, str] = field(default_factory=dict)
    enqueued: list[str] = field(default_factory=list)
    # task uid → (node, error) of the binds the session's binder refused: those tasks are
    # Pending again, their room released (``Session.bind_task``); the cache shows the error.
    bind_errors: dict[str, tuple[str, str]] = field(default_factory=dict)
    timings: SessionTimings = field(default_factory=SessionTimings, compare=False)
    # PodGroup uid -> the events plugins recorded on it this session, in order.
    pod_group_events: dict[str, list[PodGroupEvent]] = field(default_factory=dict)
    # Every queue's share as the sharing plugin computed it at session open, when the caller
    # asked for it (``run_session(..., report_shares=True)``): what the console shows.
    shares: ShareReport | None = field(default=None, compare=False)
    # The action of each committed statement that evicted, in commit order: Volcano's
    # ``RegisterEvictionTransaction`` (``volcano_eviction_transactions_total``) counts those.
    eviction_transactions: list[str] = field(default_factory=list, compare=False)
    # pod uid -> annotations the bind writes on the pod before binding it (deviceshare's card
    # assignment: ``volcano.sh/gpu-index``, ``volcano.sh/vgpu-ids-new`` ...), as Volcano's
    # ``TaskInfo.PodAnnotations`` carries them to its bind. Only pods bound this session.
    pod_annotations: dict[str, dict[str, str]] = field(default_factory=dict)
    # pod uid -> (node, resource -> cpuset) numa-aware chose for the pods bound this session
    # (Volcano's ``AddUnassignedNumaPods``): the exclusive CPUs to record for the node.
    numa_assignments: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    # PodGroup uid -> the HyperNode its job is in after the session, for jobs with
    # ``networkTopology`` that have one: what the cache writes to the PodGroup annotation
    # ``volcano.sh/job-allocated-hypernode`` (Volcano's ``JobInfo.AllocatedHyperNode``).
    allocated_hypernodes: dict[str, str] = field(default_factory=dict)
