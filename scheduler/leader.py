"""One scheduler at a time: a lease with an expiry, in Redis when there is one, else the database.

Volcano's counterpart: leader election (``--leader-elect``, a Lease object renewed by the
leader). Here the lease is a key ``SET NX PX`` in Redis (renewed and released by compare-and-set
scripts, so a holder never extends or drops someone else's lease) or a ``LeaderLease`` row taken
by a conditional UPDATE (``WHERE holder = me OR expires_at < now``), which the database applies to
one writer at a time. A holder that dies stops renewing; once the lease expires (``ttl``, a few
schedule periods) the next worker to try takes it.

Each process has its own holder id (host, pid and a random part), so two worker processes on one
machine are two candidates.
"""

from __future__ import annotations

import os
import secrets
import socket
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from scheduler.models import LeaderLease

__all__ = ["DatabaseLease", "Lease", "RedisLease", "holder_id", "make_lease"]

LEASE_NAME = "volcano-scheduler"

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


def make_lease(*, ttl: float | None = None, holder: str | None = None) -> Lease:
    """Return the Redis lease when ``REDIS_URL`` is set, else the database one."""
    if ttl is None:
        ttl = float(
            getattr(settings, "VOLCANO_LEADER_TTL", 0)
            or os.environ.get("VOLCANO_LEADER_TTL")
            or 5.0
        )
    url = getattr(settings, "REDIS_URL", "")
    if url:
        return RedisLease(url=url, ttl=ttl, holder=holder)
    return DatabaseLease(ttl=ttl, holder=holder)
