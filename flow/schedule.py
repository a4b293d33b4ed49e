"""Cron schedules as Kubernetes reads them: five fields or a descriptor, in a time zone.

Volcano's (and Kubernetes') CronJob parses ``spec.schedule`` with the standard parser: minute,
hour, day of month, month and day of week, names for months and days, ``*/n`` steps, and the
descriptors ``@yearly``/``@annually``, ``@monthly``, ``@weekly``, ``@daily``/``@midnight``,
``@hourly`` and ``@every <duration>``. Times are computed in ``spec.timeZone`` (UTC when unset,
as the controller-manager's own zone is UTC here) and returned in UTC.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache
from zoneinfo import ZoneInfo

from croniter import CroniterBadCronError, CroniterBadDateError, croniter

from apis.durations import parse_duration

__all__ = ["Schedule", "ScheduleError", "parse_schedule"]

_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}


class ScheduleError(ValueError):
    """A schedule that is not a standard cron expression."""


@dataclass(frozen=True, slots=True)
class Schedule:
    """A parsed schedule: five cron fields, or a fixed period (``@every 90s``)."""

    fields: str = ""
    every: dt.timedelta | None = None

    def next_after(self, moment: dt.datetime, zone: str = "") -> dt.datetime:
        """Return the first scheduled time strictly after ``moment`` (aware, in UTC)."""
        if self.every is not None:
            # robfig's ConstantDelaySchedule: whole seconds after ``moment``.
            start = moment.replace(microsecond=0)
            return (start + self.every).astimezone(dt.UTC)
        local = moment.astimezone(ZoneInfo(zone) if zone else dt.UTC)
        found = croniter(self.fields, local).get_next(dt.datetime)
        return found.astimezone(dt.UTC)

    def times_between(
        self, start: dt.datetime, end: dt.datetime, zone: str = "", limit: int = 101
    ) -> list[dt.datetime]:
        """Return the scheduled times in ``(start, end]``, at most ``limit`` of them."""
        found: list[dt.datetime] = []
        moment = start
        while len(found) < limit:
            moment = self.next_after(moment, zone)
            if moment > end:
                break
            found.append(moment)
        return found


@lru_cache(maxsize=4096)
def parse_schedule(text: str) -> Schedule:
    """Return ``text`` parsed, or raise ``ScheduleError``."""
    spec = text.strip()
    if spec.startswith("@every"):
        try:
            seconds = parse_duration(spec[len("@every") :].strip())
        except ValueError as exc:
            raise ScheduleError(f"failed to parse duration {spec!r}") from exc
        # robfig's Every: at least a second, whole seconds.
        return Schedule(every=dt.timedelta(seconds=max(int(seconds), 1)))
    if spec.startswith("@"):
        if spec not in _DESCRIPTORS:
            raise ScheduleError(f"unrecognized descriptor: {spec}")
        spec = _DESCRIPTORS[spec]
    if len(spec.split()) != 5:
        raise ScheduleError(f"expected exactly 5 fields, found {len(spec.split())}: {text}")
    try:
        croniter(spec, dt.datetime(2000, 1, 1, tzinfo=dt.UTC)).get_next(dt.datetime)
    except (CroniterBadCronError, CroniterBadDateError, ValueError, KeyError) as exc:
        raise ScheduleError(str(exc)) from exc
    return Schedule(fields=spec)
