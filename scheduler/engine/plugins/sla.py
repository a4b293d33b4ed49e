"""SLA plugin: a job that has waited past its waiting time goes first and is let through.

Volcano's counterpart: ``pkg/scheduler/plugins/sla``. The waiting time is the plugin argument
``sla-waiting-time`` (a Go duration such as ``3m`` or ``1h30m``), overridden per job by the
PodGroup annotation of the same name. Jobs with a waiting time are ordered by their deadline
(creation + waiting time) ahead of jobs without one; once a job is past its deadline, the enqueue
and pipelined votes permit it (a reject from another plugin still wins). The clock is the
snapshot's ``now``, never the wall clock.
"""

from __future__ import annotations

from datetime import timedelta

from apis.durations import parse_duration as go_duration_seconds
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.types import ABSTAIN, PERMIT
from scheduler.engine.framework import ArgSpec, Plugin, Session, register_plugin

__all__ = ["WAITING_TIME_KEY", "SlaPlugin", "parse_duration"]

WAITING_TIME_KEY = "sla-waiting-time"


def parse_duration(text: str) -> timedelta | None:
    """Return a Go duration (``90s``, ``1h30m``, ``-5m``) as a timedelta, or None if malformed."""
    try:
        return timedelta(seconds=go_duration_seconds(text))
    except ValueError:
        return None


def _positive(text: str) -> timedelta | None:
    duration = parse_duration(text) if text else None
    return duration if duration is not None and duration > timedelta(0) else None


@register_plugin
class SlaPlugin(Plugin):
    """Deadline-first job order; permits jobs that waited past their waiting time."""

    name = "sla"
    arguments_schema = (ArgSpec(WAITING_TIME_KEY, str, "", help="a Go duration, e.g. 3m"),)

    def on_session_open(self, ssn: Session) -> None:
        """Read the default waiting time and register job order, enqueue and pipelined votes."""
        self._now = ssn.now
        self._default = _positive(self.arguments.get_str(WAITING_TIME_KEY))
        ssn.add_job_order_fn(self.name, self._job_order)
        ssn.add_job_enqueueable_fn(self.name, self._permit_overdue)
        ssn.add_job_pipelined_fn(self.name, self._permit_overdue)

    def waiting_time(self, job: JobInfo) -> timedelta | None:
        """Return the job's waiting time: its annotation, else the plugin's argument."""
        own = _positive(job.annotations.get(WAITING_TIME_KEY, ""))
        return own if own is not None else self._default

    def _job_order(self, left: JobInfo, right: JobInfo) -> int:
        """Return jobs with a waiting time first, the earlier deadline first among them."""
        lwait, rwait = self.waiting_time(left), self.waiting_time(right)
        if lwait is None:
            return 0 if rwait is None else 1
        if rwait is None:
            return -1
        if left.creation_timestamp is None or right.creation_timestamp is None:
            return 0
        ldeadline = left.creation_timestamp + lwait
        rdeadline = right.creation_timestamp + rwait
        if ldeadline == rdeadline:
            return 0
        return -1 if ldeadline < rdeadline else 1

    def _permit_overdue(self, job: JobInfo) -> int:
        """Permit a job that has waited at least its waiting time; abstain otherwise."""
        wait = self.waiting_time(job)
        if wait is None or job.creation_timestamp is None:
            return ABSTAIN
        return PERMIT if self._now - job.creation_timestamp >= wait else ABSTAIN
