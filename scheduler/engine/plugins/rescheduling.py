"""rescheduling plugin: name running pods to move, for the shuffle action to evict.

Volcano's counterpart: ``pkg/scheduler/plugins/rescheduling``. At most once per ``interval`` (a
Go duration, default 5m; an unreadable one is 5m) the plugin registers a victim hook
(``enabledVictim``) per strategy that has a victim function, and shuffle evicts what they name.
Volcano's only such strategy is ``lowNodeUtilization`` (``rescheduling_lnu.py``), which is also
the default when ``strategies`` is absent or empty; its thresholds are ``rescheduling_conf.py``.

Two values outlive a session, kept in Go package variables in Volcano and in the session's
``PluginMemory`` here (``framework/memory.py``; the live worker keeps one for its process):

- the last time the strategies ran. Volcano sets it when the scheduler process starts, so the
  first chance comes one interval after start. Until they first run, the memory's first
  session stands for the start (``PluginMemory.started``): a fresh simulate or what-if session
  is that first session, so it runs the strategies only with an interval of 0 or less (in
  Volcano the start is always a little earlier than the first session), while the live worker
  runs them one interval after its first session, even if the plugin joined the conf later.
  Volcano's time is the wall clock; here it is the session's ``now``.
- ``metricsPeriod`` (default 5m): which measured average the strategies read. Once given it
  stays until another is given, even after the conf stops naming it, as in Volcano.

Volcano reads the arguments of this plugin in every tier that names it; the conf parser here
refuses a plugin named twice, so there is one set.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.framework import ArgSpec, Plugin, Session, register_plugin
from scheduler.engine.plugins.rescheduling_conf import (
    DEFAULT_METRICS_PERIOD,
    LOW_NODE_UTILIZATION,
    LowNodeUtilizationConf,
    check_strategies,
    parse_interval,
    read_strategies,
)
from scheduler.engine.plugins.rescheduling_lnu import low_node_utilization_victims

__all__ = ["INTERVAL_KEY", "METRICS_PERIOD_KEY", "STRATEGIES_KEY", "ReschedulingPlugin"]

INTERVAL_KEY = "interval"
METRICS_PERIOD_KEY = "metricsPeriod"
STRATEGIES_KEY = "strategies"
LAST_RUN = "lastRescheduleTime"
PERIOD = "metricsPeriod"


def time_to_run(ssn: Session, plugin: str, interval: float) -> bool:
    """Return True when ``interval`` seconds have passed since the last run (then it is now).

    Volcano's ``timeToRun``: ``last + interval`` strictly before now. A memory without a last
    time is a scheduler that just started at ``now``: only an interval of 0 or less has passed.
    """
    now: datetime = ssn.now
    remembered = ssn.memory.get(plugin, LAST_RUN)
    last = remembered if isinstance(remembered, datetime) else ssn.memory.started
    if last is None or last >= now:  # the scheduler starts now (Volcano's start is just before)
        due = interval <= 0
    else:
        try:
            due = last + timedelta(seconds=interval) < now
        except OverflowError:
            due = interval < 0
    if due:
        ssn.memory.put(plugin, LAST_RUN, now)
    return due


@register_plugin
class ReschedulingPlugin(Plugin):
    """Victim hooks of the rescheduling strategies, at most once per interval."""

    name = "rescheduling"
    arguments_schema = (
        ArgSpec(INTERVAL_KEY, str, "5m",
                help="a Go duration: the strategies run at most once per interval (the first "
                "time one interval after the scheduler starts)"),
        ArgSpec(METRICS_PERIOD_KEY, str, DEFAULT_METRICS_PERIOD,
                help="which measured average of node usage the strategies read (the metrics "
                "source fills 10m only: other periods read 0); kept until another is given"),
        ArgSpec(STRATEGIES_KEY, str, "",
                help="a YAML list of {name, params}; only lowNodeUtilization selects victims, "
                "params thresholds and targetThresholds ({cpu: 20, memory: 20}, integer "
                "percent); default: lowNodeUtilization at 100",
                nested=check_strategies),
    )  # fmt: skip

    def on_session_open(self, ssn: Session) -> None:
        """Read the arguments, and register the strategies' victim hooks if it is time."""
        self._ssn = ssn
        args = self.arguments
        interval = parse_interval(args.get_str(INTERVAL_KEY))
        if args.is_set(METRICS_PERIOD_KEY):
            ssn.memory.put(self.name, PERIOD, args.get_str(METRICS_PERIOD_KEY))
        remembered = ssn.memory.get(self.name, PERIOD)
        self._period = str(remembered) if remembered else DEFAULT_METRICS_PERIOD
        strategies = read_strategies(args.get_str(STRATEGIES_KEY))
        if strategies is None:
            self._lnu: LowNodeUtilizationConf | None = LowNodeUtilizationConf()
        else:
            # The last entry of a name holds its params (Volcano's map by strategy name).
            params = [s.params for s in strategies if s.name == LOW_NODE_UTILIZATION]
            self._lnu = LowNodeUtilizationConf.from_params(params[-1]) if params else None
        if not time_to_run(ssn, self.name, interval):
            return
        if self._lnu is not None:
            ssn.add_victim_tasks_fn(self.name, self._low_node_utilization)

    def _low_node_utilization(self, tasks: list[TaskInfo]) -> list[TaskInfo]:
        assert self._lnu is not None
        return low_node_utilization_victims(self._ssn.node_list, self._period, tasks, self._lnu)
