"""A cron schedule in words for the console ("every 5 minutes", "every day at 02:30").

The common shapes are said in the user's language (gettext); anything else is shown as
written, which a reader of cron already understands.
"""

from __future__ import annotations

import datetime as dt

from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

__all__ = ["describe", "until"]

_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}


def _days() -> list[str]:
    return [_("Sunday"), _("Monday"), _("Tuesday"), _("Wednesday"), _("Thursday"), _("Friday"),
            _("Saturday")]  # fmt: skip


def _every(field: str) -> int | None:
    if field == "*":
        return 1
    if field.startswith("*/") and field[2:].isdigit():
        return int(field[2:])
    return None


def describe(schedule: str) -> str:
    """Return ``schedule`` in words, or as written when its shape is not a common one."""
    text = schedule.strip()
    if text.startswith("@every "):
        return _("every %(period)s") % {"period": text[len("@every ") :]}
    fields = _DESCRIPTORS.get(text, text).split()
    if len(fields) != 5:
        return text
    minute, hour, day, month, weekday = fields
    if (day, month, weekday) == ("*", "*", "*"):
        step = _every(minute)
        if step is not None and hour == "*":
            return ngettext("every minute", "every %(n)d minutes", step) % {"n": step}
        if minute.isdigit() and hour == "*":
            return _("every hour at minute %(m)s") % {"m": minute}
        hours = _every(hour)
        if minute.isdigit() and hours is not None and hours > 1:
            return _("every %(n)d hours at minute %(m)s") % {"n": hours, "m": minute}
    if not (minute.isdigit() and hour.isdigit()):
        return text
    at = f"{int(hour):02d}:{int(minute):02d}"
    if (day, month, weekday) == ("*", "*", "*"):
        return _("every day at %(at)s") % {"at": at}
    if day == "*" and month == "*" and weekday.isdigit() and int(weekday) % 7 < 7:
        return _("every %(day)s at %(at)s") % {"day": _days()[int(weekday) % 7], "at": at}
    if day == "*" and month == "*" and weekday == "1-5":
        return _("every weekday at %(at)s") % {"at": at}
    if day.isdigit() and month == "*" and weekday == "*":
        return _("on day %(d)s of every month at %(at)s") % {"d": day, "at": at}
    if day.isdigit() and month.isdigit() and weekday == "*":
        return _("every year on %(m)s/%(d)s at %(at)s") % {"m": month, "d": day, "at": at}
    return text


def until(moment: dt.datetime | None, now: dt.datetime) -> str:
    """Return how long until ``moment`` in words ("in 5 minutes", "in under a minute")."""
    if moment is None:
        return ""
    if (moment - now).total_seconds() < 60:
        return _("in under a minute")
    return _("in %(time)s") % {"time": timeuntil(moment, now, depth=2)}
