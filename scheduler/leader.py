"""One scheduler at a time: a lease with an expiry, in Redis when there is one, else the database.

Volcano's counterpart: leader election (``--leader-elect``, a Lease object renewed by the
leader). Here the lease is a key ``SET NX PX`` in Redis (renewed and released by compare-and-set
scripts, so a holder never extends or drops someone else's lease) or a ``LeaderLease`` row taken
by a conditional UPDATE (``WHERE holder = me OR expires_at < now``), which the database applies to
one writer at a time. A holder that dies stops renewing; once the lease expires (``ttl``, a few
schedule periods) the next worker to try takes it.

Each process has its own holder id (host, pid and a random part), so two worker processes on one
machine are two candidates.

A Celery worker does not contend at each task it happens to receive: its ``LeaderElector`` runs
client-go's loop beside it, trying to take or renew the lease every retry period, so the lease
stays with its holder while it renews and passes only once it expires. The durations are
Volcano's scheduler defaults (lease 15 s, renew deadline 10 s, retry period 5 s), scaled to
``VOLCANO_LEADER_TTL`` when set: a holder that cannot renew for the renew deadline stops
leading before its lease can expire under it, and a standby never runs a session.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from scheduler.models import LeaderLease

__all__ = [
    "DatabaseLease",
    "LeaderElector",
    "Lease",
    "LeaseState",
    "RedisLease",
    "holder_id",
    "lease_duration",
    "lease_state",
    "make_lease",
]

logger = logging.getLogger(__name__)

LEASE_NAME = "volcano-scheduler"
# Volcano's scheduler: --leader-elect-lease-duration 15s, renew deadline 10s, retry period 5s.
LEASE_DURATION = 15.0
RENEW_FRACTION = 10.0 / 15.0
RETRY_FRACTION = 5.0 / 15.0

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


def holder_id() -> str:
    """Return a name for this process that no other process shares."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Lease(Protocol):
    """A lock with an expiry that one holder at a time may take and renew."""

    holder: str
    ttl: float

    def acquire(self) -> bool:
        """Take or renew the lease; return whether this holder has it now."""
        ...

    def release(self) -> None:
        """Give the lease up if this holder has it."""
        ...

    def current_holder(self) -> str:
        """Return who holds an unexpired lease ("" for nobody)."""
        ...


class DatabaseLease:
    """The lease as a ``LeaderLease`` row, taken and renewed by one conditional UPDATE."""

    def __init__(self, *, ttl: float, holder: str | None = None, name: str = LEASE_NAME) -> None:
        self.ttl, self.name = ttl, name
        self.holder = holder or holder_id()

    def acquire(self, *, now: datetime | None = None) -> bool:
        """Take the lease if it is free, expired or already ours; renew it in every case."""
        now = now or timezone.now()
        expires = now + timedelta(seconds=self.ttl)
        free = Q(holder=self.holder) | Q(expires_at__isnull=True) | Q(expires_at__lt=now)
        with transaction.atomic():
            mine = LeaderLease.objects.filter(name=self.name, holder=self.holder).exists()
            taken = LeaderLease.objects.filter(free, name=self.name).update(
                holder=self.holder,
                expires_at=expires,
                **({} if mine else {"acquired_at": now}),
            )
        if taken:
            return True
        try:
            with transaction.atomic():
                LeaderLease.objects.create(
                    name=self.name, holder=self.holder, expires_at=expires, acquired_at=now
                )
        except IntegrityError:  # someone else holds it (or created it first)
            return False
        return True

    def release(self) -> None:
        """Expire the lease now if we hold it."""
        LeaderLease.objects.filter(name=self.name, holder=self.holder).update(
            holder="", expires_at=None
        )

    def current_holder(self) -> str:
        """Return the holder of the unexpired lease, or ""."""
        row = LeaderLease.objects.filter(name=self.name, expires_at__gte=timezone.now()).first()
        return row.holder if row else ""


class RedisLease:
    """The lease as a Redis key with a TTL (``SET NX PX``; renew and release by script)."""

    def __init__(self, *, url: str, ttl: float, holder: str | None = None) -> None:
        import redis

        self.ttl = ttl
        self.holder = holder or holder_id()
        self.key = f"volcano:{LEASE_NAME}:leader"
        self._redis: Any = redis.Redis.from_url(url)

    def acquire(self) -> bool:
        """Take the key if nobody has it, else renew it if it is ours."""
        px = max(int(self.ttl * 1000), 1)
        if self._redis.set(self.key, self.holder, nx=True, px=px):
            return True
        return bool(self._redis.eval(_RENEW, 1, self.key, self.holder, px))

    def release(self) -> None:
        """Delete the key if it is ours."""
        self._redis.eval(_RELEASE, 1, self.key, self.holder)

    def current_holder(self) -> str:
        """Return the key's holder, or ""."""
        value = self._redis.get(self.key)
        return value.decode() if value else ""


def _schedule_period() -> float:
    """Return the scheduling period (``VOLCANO_SCHEDULE_PERIOD``, default 1 s)."""
    value = getattr(settings, "VOLCANO_SCHEDULE_PERIOD", 0) or os.environ.get(
        "VOLCANO_SCHEDULE_PERIOD"
    )
    try:
        return max(float(str(value)), 0.05) if value else 1.0
    except ValueError:
        return 1.0


def lease_duration() -> float:
    """Return the lease duration: ``VOLCANO_LEADER_TTL``, else Volcano's 15 s."""
    return float(
        getattr(settings, "VOLCANO_LEADER_TTL", 0)
        or os.environ.get("VOLCANO_LEADER_TTL")
        or LEASE_DURATION
    )


def make_lease(*, ttl: float | None = None, holder: str | None = None) -> Lease:
    """Return the Redis lease when ``REDIS_URL`` is set, else the database one."""
    if ttl is None:
        ttl = lease_duration()
    url = getattr(settings, "REDIS_URL", "")
    if url:
        return RedisLease(url=url, ttl=ttl, holder=holder)
    return DatabaseLease(ttl=ttl, holder=holder)


@dataclass(frozen=True, slots=True)
class LeaseState:
    """Who holds the scheduler's lease and until when (for the health page)."""

    holder: str  # "" when nobody holds an unexpired lease
    expires_at: datetime | None
    acquired_at: datetime | None  # known for the database lease only
    store: str  # "database" or "redis"


def lease_state() -> LeaseState:
    """Read the lease without contending for it: one row, or one Redis round trip."""
    url = getattr(settings, "REDIS_URL", "")
    now = timezone.now()
    if url:
        import redis

        client: Any = redis.Redis.from_url(url)
        key = f"volcano:{LEASE_NAME}:leader"
        value, ttl_ms = client.get(key), client.pttl(key)
        if not value:
            return LeaseState("", None, None, "redis")
        expires = now + timedelta(milliseconds=ttl_ms) if ttl_ms and ttl_ms > 0 else None
        return LeaseState(value.decode(), expires, None, "redis")
    row = LeaderLease.objects.filter(name=LEASE_NAME).first()
    if row is None or not row.holder or row.expires_at is None or row.expires_at < now:
        return LeaseState("", row.expires_at if row else None, None, "database")
    return LeaseState(row.holder, row.expires_at, row.acquired_at, "database")


class LeaderElector:
    """client-go's leader election over a ``Lease``, in a thread beside the work it guards.

    Every ``retry_period`` the thread takes the lease if free or renews it if held. The process
    leads while its last successful renewal is younger than ``renew_deadline`` (shorter than the
    lease, so it stops leading before another can take over). It is itself a ``Lease`` whose
    ``acquire`` answers "do I lead now" without a round trip, which is what the scheduling cycle
    asks before it starts and again before it writes.
    """

    def __init__(
        self,
        lease: Lease,
        *,
        renew_deadline: float | None = None,
        retry_period: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        while_leading: Callable[[], None] | None = None,
        period: float | None = None,
        heartbeat: Callable[[bool], None] | None = None,
    ) -> None:
        self.lease = lease
        self.holder, self.ttl = lease.holder, lease.ttl
        self.renew_deadline = renew_deadline or lease.ttl * RENEW_FRACTION
        self.retry_period = retry_period or lease.ttl * RETRY_FRACTION
        self._clock = clock
        self._renewed: float | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        # What the leader does every ``period`` on its own (client-go's OnStartedLeading loop).
        self._while_leading = while_leading
        self._period = period
        self._loop: threading.Thread | None = None
        # Told after each try whether this process leads (the health page's worker list).
        self._heartbeat = heartbeat

    def try_acquire_or_renew(self) -> bool:
        """Take or renew the lease once; return whether it is held now."""
        try:
            held = self.lease.acquire()
        except Exception:  # the store is unreachable: not renewed; the deadline decides
            logger.exception("could not take or renew the scheduler lease")
            held = False
        with self._lock:
            if held:
                self._renewed = self._clock()
            elif self._renewed is not None and not self._leading():
                self._renewed = None
            leading = self._leading()
        if self._heartbeat is not None:
            try:
                self._heartbeat(leading)
            except Exception:  # a lost heartbeat is not a lost lease
                logger.exception("could not record the scheduler's heartbeat")
        return held

    def _leading(self) -> bool:
        return self._renewed is not None and self._clock() - self._renewed < self.renew_deadline

    def acquire(self) -> bool:
        """Return whether this process leads now (renewed within the renew deadline)."""
        with self._lock:
            return self._leading()

    def current_holder(self) -> str:
        """Return who holds an unexpired lease ("" for nobody)."""
        return self.lease.current_holder()

    def start(self) -> LeaderElector:
        """Try once now, then keep trying every retry period in a daemon thread."""
        self.try_acquire_or_renew()
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="volcano-leader-election", daemon=True
            )
            self._thread.start()
        if self._while_leading is not None and self._loop is None:
            self._loop = threading.Thread(
                target=self._lead, name="volcano-leader-loop", daemon=True
            )
            self._loop.start()
        return self

    def _lead(self) -> None:
        period = self._period or _schedule_period()
        try:
            while not self._stopping.wait(period):
                if self.acquire() and self._while_leading is not None:
                    try:
                        self._while_leading()
                    except Exception:  # the next period tries again
                        logger.exception("the leader's loop failed")
        finally:
            connection.close()

    def _run(self) -> None:
        try:
            while not self._stopping.wait(self.retry_period):
                self.try_acquire_or_renew()
        finally:
            connection.close()  # the thread's own database connection (the database lease)

    def release(self) -> None:
        """Stop electing and give the lease up if held (client-go's ReleaseOnCancel)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(self.retry_period + 5.0)
        if self._loop is not None:
            self._loop.join(30.0)
        with self._lock:
            self._renewed = None
        self.lease.release()
