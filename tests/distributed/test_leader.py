"""A steady leader: two real Celery workers, the lease with its holder until it dies.

Kubernetes' leader election keeps the lease with the process that renews it; another takes it
only after it expires. Here the lease duration is 2 s (``celery_kit``): the holder keeps it for
fifteen lease durations while both workers receive cycles, every session in that time is the
holder's, and once it is killed the other worker leads within one lease duration and a retry.
"""

from __future__ import annotations

import time

from celery import Celery

from scheduler.defaults import DEFAULT_SCHEDULER_CONF
from scheduler.models import SessionRecord
from tests.distributed.celery_kit import Stack, wait_for
from tests.e2e.stack import nodes
from tests.scheduler.factories import make_queue, use_conf

LEASE_KEY = "volcano:volcano-scheduler:leader"
LEASE_SECONDS = 2.0  # celery_kit's VOLCANO_LEADER_TTL
HELD_FOR = 30.0


def _holder(stack: Stack) -> str:
    return (stack.redis().get(LEASE_KEY) or b"").decode()


def _pid(holder: str) -> int:
    return int(holder.split(":")[1]) if holder.count(":") >= 2 else 0


def test_the_lease_stays_with_its_holder_until_it_dies(stack: Stack) -> None:
    use_conf(DEFAULT_SCHEDULER_CONF)
    make_queue("default")  # transactional tests flush the migrations' rows
    nodes(1)
    workers = {"w1": stack.worker("w1"), "w2": stack.worker("w2")}
    wait_for(lambda: all("ready." in stack.log(n) for n in workers), 60, "workers", stack)
    stack.beat()
    wait_for(lambda: SessionRecord.objects.exists(), 60, "a first session", stack)
    holder = _holder(stack)
    leader = next(n for n, p in workers.items() if p.pid == _pid(holder))
    standby = next(n for n in workers if n != leader)

    # Both workers are sent cycles of their own all along, so each contends at every cycle.
    sender = Celery("contention", broker=stack.redis_url)
    holders: set[str] = set()
    until = time.monotonic() + HELD_FOR
    while time.monotonic() < until:
        for name in workers:
            sender.send_task("scheduler.tasks.schedule", queue=name)
        holders.add(_holder(stack))
        time.sleep(0.25)
    held = list(SessionRecord.objects.values_list("worker", flat=True))

    assert holders == {holder}, f"the lease changed hands while {leader} renewed it: {holders}"
    assert len(held) >= 20
    assert set(held) == {holder}, "a standby ran a session"
    assert "'ran'" not in stack.log(standby)
    assert "'standby'" in stack.log(standby)

    last = SessionRecord.objects.order_by("-pk").values_list("pk", flat=True).first()
    stack.kill(leader)
    killed_at = time.monotonic()

    def taken_over() -> bool:
        sender.send_task("scheduler.tasks.schedule", queue=standby)
        return _pid(_holder(stack)) == workers[standby].pid

    wait_for(taken_over, 30, f"{standby} to take the lease", stack)
    took = time.monotonic() - killed_at
    wait_for(lambda: SessionRecord.objects.filter(pk__gt=last or 0).exists(), 30, "a session",
             stack)  # fmt: skip
    stack.stop_all()

    # Within one lease duration (the lease's own expiry) and a retry period of the standby.
    assert took < LEASE_SECONDS + LEASE_SECONDS / 3 + 1.0, took
    after = set(SessionRecord.objects.filter(pk__gt=last or 0).values_list("worker", flat=True))
    assert after
    assert {_pid(worker) for worker in after} == {workers[standby].pid}
