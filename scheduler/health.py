"""Is the scheduler scheduling, do the controllers keep up, and what is misconfigured?

The health page and the Overview's card read it. Every check is bounded, because the Overview
is every user's first screen: the last session (one indexed row), the lease (one row or one
Redis round trip), the workers and the controllers' progress (the shared cache,
``scheduler.heartbeat``), the oldest unreconciled change (one primary-key lookup), the queues
(at most ``QUEUE_LIMIT`` rows, a few columns) and the active configuration (parsed once per
version, ``active_conf``).

The verdict, in order: no session ever recorded; none for longer than ``stale_after`` (the
worker has stopped, or lost the lease and nobody took it); the last session failed; the last
session took longer than its period (Volcano's ``schedule-period``: sessions then run back to
back and every decision waits); else scheduling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apis.errors import EngineError
from kube.models import ChangeEvent
from queues.models import Queue
from scheduler.active_conf import active_conf
from scheduler.conf_findings import IgnoredArgument, ignored_arguments
from scheduler.engine.conf import SchedulerConf
from scheduler.heartbeat import Reconciled, WorkerBeat, reconciled, workers
from scheduler.leader import LeaseState, lease_state
from scheduler.models import SessionRecord
from scheduler.worker import schedule_period

__all__ = [
    "Finding",
    "Health",
    "Lag",
    "Verdict",
    "controller_lag",
    "duration",
    "findings",
    "health",
    "session_verdict",
]

QUEUE_LIMIT = 500
NEEDED = ("cpu", "memory")  # every pod the console submits asks for both
CLOSED = ("Closed", "Closing")


def duration(seconds: float) -> str:
    """Return ``seconds`` in words short enough for a verdict ("12 ms", "0.4 s", "3 minutes")."""
    if seconds < 1:
        return _("%(n)s ms") % {"n": f"{seconds * 1000:.0f}"}
    if seconds < 10:
        return _("%(n)s s") % {"n": f"{seconds:.1f}".removesuffix(".0")}
    if seconds < 120:
        return _("%(n)s s") % {"n": f"{seconds:.0f}"}
    if seconds < 7200:
        minutes = round(seconds / 60)
        return ngettext("%(n)d minute", "%(n)d minutes", minutes) % {"n": minutes}
    hours = round(seconds / 3600)
    return ngettext("%(n)d hour", "%(n)d hours", hours) % {"n": hours}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer to "is it scheduling?" with the facts behind it."""

    state: str  # ok, slow, failing, stale, none
    text: str
    period: float
    last: SessionRecord | None = None
    age: float | None = None  # seconds since the last session ended

    @property
    def good(self) -> bool:
        """Return True while sessions run on time and succeed."""
        return self.state == "ok"


def stale_after(period: float, last_ms: float) -> float:
    """Return how long a silence means "not scheduling": five periods (at least 5 s), or three
    times the last session when sessions are that long (they end that far apart)."""
    return max(5 * period, 5.0, 3 * last_ms / 1000)


def session_verdict(now: datetime | None = None) -> Verdict:
    """Judge the scheduler by its last recorded session."""
    now = now or timezone.now()
    period = schedule_period()
    last = SessionRecord.objects.order_by("-started_at", "-pk").first()
    if last is None:
        return Verdict(
            "none", _("Not scheduling: no session recorded yet — is the worker running?"), period
        )
    ended = last.started_at.timestamp() + last.e2e_ms / 1000
    age = max(now.timestamp() - ended, 0.0)
    words = {
        "ago": duration(age),
        "took": duration(last.e2e_ms / 1000),
        "period": duration(period),
    }
    if age > stale_after(period, last.e2e_ms):
        text = _("Not scheduling: no session for %(ago)s — is the worker running?") % words
        return Verdict("stale", text, period, last, age)
    if last.error:
        text = _("Sessions fail: the last one, %(ago)s ago, failed: %(error)s") % {
            **words,
            "error": last.error.splitlines()[0][:200],
        }
        return Verdict("failing", text, period, last, age)
    if last.e2e_ms / 1000 > period:
        text = _("Scheduling late: last session %(ago)s ago took %(took)s, longer than its "
                 "%(period)s period") % words  # fmt: skip
        return Verdict("slow", text, period, last, age)
    text = _("Scheduling: last session %(ago)s ago, %(took)s of its %(period)s period") % words
    return Verdict("ok", text, period, last, age)


@dataclass(frozen=True, slots=True)
class Lag:
    """How far behind the controllers are: the oldest change their last pass had not seen."""

    reconciled: Reconciled | None
    oldest: datetime | None  # when the oldest unreconciled change was written
    seconds: float
    behind: bool
    text: str


def controller_lag(now: datetime | None = None, *, period: float | None = None) -> Lag:
    """Compare the controllers' last pass with the change stream (one primary-key lookup)."""
    now = now or timezone.now()
    period = period or schedule_period()
    done = reconciled()
    if done is None:
        text = _("No controller pass recorded since the scheduler started.")
        return Lag(None, None, 0.0, False, text)
    oldest = (
        ChangeEvent.objects.filter(id__gt=done.through)
        .order_by("id")
        .values_list("created_at", flat=True)
        .first()
    )
    if oldest is None:
        return Lag(done, None, 0.0, False, _("Controllers are up to date: no change waits."))
    seconds = max((now - oldest).total_seconds(), 0.0)
    behind = seconds > max(5 * period, 10.0)
    words = {"age": duration(seconds)}
    text = (
        _("Controllers are behind: the oldest unreconciled change is %(age)s old.") % words
        if behind
        else _("Controllers keep up: the oldest unreconciled change is %(age)s old.") % words
    )
    return Lag(done, oldest, seconds, behind, text)


@dataclass(frozen=True, slots=True)
class Finding:
    """One misconfiguration, in words, with the page that fixes it."""

    area: str  # "queue" or "policy"
    subject: str
    message: str
    fix_url: str
    fix_label: str


def _queue_fix(name: str, *, edit: bool) -> tuple[str, str]:
    if edit:
        return reverse("queues:queue_edit", args=[name]), _("Edit the queue")
    return reverse("queues:queue_detail", args=[name]), _("Open the queue's page")


def _hierarchical(conf: SchedulerConf | None) -> bool:
    if conf is None:
        return False
    return any(o.name == "capacity" and o.enabled("enableHierarchy") for o in conf.plugin_options())


def _queue_findings(conf: SchedulerConf | None) -> list[Finding]:
    """Queues no job can enter, and hierarchies the scheduler ignores or cannot honour."""
    rows = list(
        Queue.objects.order_by("name").only(
            "name", "state", "capability", "guarantee", "parent", "pending"
        )[:QUEUE_LIMIT]
    )
    by_name = {q.name: q for q in rows}
    out: list[Finding] = []
    for q in rows:
        if q.state in CLOSED and q.pending:
            url, label = _queue_fix(q.name, edit=False)
            message = ngettext(
                "Queue %(q)s is %(state)s: %(n)d job waits in it and cannot be scheduled.",
                "Queue %(q)s is %(state)s: %(n)d jobs wait in it and cannot be scheduled.",
                q.pending,
            ) % {"q": q.name, "state": q.state, "n": q.pending}
            out.append(Finding("queue", q.name, message, url, label))
        for resource in NEEDED:
            if resource in (q.capability or {}) and int(q.capability[resource]) <= 0:
                url, label = _queue_fix(q.name, edit=True)
                message = _("Queue %(q)s has a %(r)s capability of 0: no job that requests "
                            "%(r)s can enter it.") % {"q": q.name, "r": resource}  # fmt: skip
                out.append(Finding("queue", q.name, message, url, label))
    out += _hierarchy_findings(rows, by_name, conf)
    return out


def _hierarchy_findings(
    rows: list[Queue], by_name: dict[str, Queue], conf: SchedulerConf | None
) -> list[Finding]:
    children = [q for q in rows if q.parent and q.parent != "root" and q.name != "root"]
    if not children:
        return []
    out: list[Finding] = []
    if not _hierarchical(conf):
        names = ", ".join(q.name for q in children[:5]) + ("…" if len(children) > 5 else "")
        message = ngettext(
            "%(n)d queue names a parent (%(names)s), but the policy has no capacity plugin "
            "with enableHierarchy: the hierarchy is ignored.",
            "%(n)d queues name a parent (%(names)s), but the policy has no capacity plugin "
            "with enableHierarchy: the hierarchy is ignored.",
            len(children),
        ) % {"n": len(children), "names": names}
        out.append(Finding("policy", "capacity", message, reverse("scheduler:policy"),
                           _("Edit the policy")))  # fmt: skip
        return out
    guaranteed: dict[str, dict[str, int]] = {}
    for q in children:
        parent = by_name.get(q.parent)
        if parent is None:
            url, label = _queue_fix(q.name, edit=True)
            message = _("Queue %(q)s names parent %(p)s, which does not exist: its jobs "
                        "cannot be placed in the hierarchy.") % {"q": q.name, "p": q.parent}  # fmt: skip
            out.append(Finding("queue", q.name, message, url, label))
            continue
        for resource in NEEDED:
            if resource in (parent.capability or {}) and int(parent.capability[resource]) <= 0:
                url, label = _queue_fix(parent.name, edit=True)
                message = _("Queue %(q)s cannot admit jobs that request %(r)s: its parent "
                            "%(p)s has a %(r)s capability of 0.") % {
                    "q": q.name, "p": parent.name, "r": resource}  # fmt: skip
                out.append(Finding("queue", q.name, message, url, label))
        sums = guaranteed.setdefault(q.parent, {})
        for resource, value in (q.guarantee or {}).items():
            sums[resource] = sums.get(resource, 0) + int(value)
    for name, sums in sorted(guaranteed.items()):
        parent = by_name[name]
        for resource, total in sorted(sums.items()):
            own = int((parent.guarantee or {}).get(resource, 0))
            if (parent.guarantee or {}) and total > own:
                url, label = _queue_fix(name, edit=True)
                message = _("The children of queue %(p)s guarantee more %(r)s than %(p)s "
                            "itself does: capacity cannot honour every guarantee.") % {
                    "p": name, "r": resource}  # fmt: skip
                out.append(Finding("queue", name, message, url, label))
    return out


def _argument_text(arg: IgnoredArgument) -> str:
    words = {"owner": arg.owner, "key": arg.key, "path": arg.path}
    if arg.action_missing:
        return _("Argument %(key)s of action %(owner)s is ignored: %(owner)s is not in the "
                 "actions list (%(path)s).") % words  # fmt: skip
    if arg.unlisted_resource:
        return _("Argument %(key)s of plugin %(owner)s is ignored: %(res)s is not listed in "
                 "binpack.resources (%(path)s).") % {**words, "res": arg.unlisted_resource}  # fmt: skip
    return _("Argument %(key)s of plugin %(owner)s is ignored: the plugin reads it only with "
             "%(flags)s on (%(path)s).") % {**words, "flags": " or ".join(arg.flags)}  # fmt: skip


def _policy_findings() -> tuple[list[Finding], SchedulerConf | None]:
    """The active configuration: does it parse, and which of its arguments go unread."""
    url, label = reverse("scheduler:policy"), _("Edit the policy")
    try:
        row, conf = active_conf()
    except EngineError as exc:
        message = _("The active policy does not parse, so every session fails: %(error)s") % {
            "error": str(exc)
        }
        return [Finding("policy", "policy", message, url, label)], None
    subject = f"v{row.version}" if row is not None else "default"
    found = [Finding("policy", subject, _argument_text(a), url, label)
             for a in ignored_arguments(conf)]  # fmt: skip
    return found, conf


def findings() -> list[Finding]:
    """Every misconfiguration: the policy's first, then the queues'."""
    policy, conf = _policy_findings()
    return policy + _queue_findings(conf)


@dataclass(slots=True)
class Health:
    """Everything the health page shows (``full`` False: the verdict only)."""

    verdict: Verdict
    full: bool
    lease: LeaseState | None = None
    workers: list[WorkerBeat] = field(default_factory=list)
    lag: Lag | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def problems(self) -> int:
        """Return how many things need a look besides the verdict."""
        return len(self.findings) + (1 if self.lag is not None and self.lag.behind else 0)


def health(*, full: bool, now: datetime | None = None, processes: bool = True) -> Health:
    """Gather the checks; ``full`` adds the lag and misconfigurations, and unless
    ``processes`` is False (the Overview's card) the leader and the workers."""
    now = now or timezone.now()
    verdict = session_verdict(now)
    if not full:
        return Health(verdict, full=False)
    report = Health(
        verdict,
        full=True,
        lag=controller_lag(now, period=verdict.period),
        findings=findings(),
    )
    if processes:
        report.lease = lease_state()
        report.workers = workers(now=now.timestamp())
    return report
