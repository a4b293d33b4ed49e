"""The distributed mode with real processes: Celery beat and workers, PostgreSQL, Redis."""

from __future__ import annotations

import itertools
import re
import time
from datetime import timedelta

from celery import Celery
from django.test import Client, override_settings
from django.utils import timezone

from core.models import Pod
from kube.models import Failpoint
from scheduler.defaults import DEFAULT_SCHEDULER_CONF
from scheduler.models import SessionRecord
from tests.distributed.celery_kit import Stack, completed, wait_for
from tests.e2e.stack import job, nodes, submit
from tests.scheduler.factories import make_queue, use_conf

LEASE_KEY = "volcano:volcano-scheduler:leader"


def test_a_celery_worker_runs_sessions_and_completes_jobs(stack: Stack) -> None:
    use_conf(DEFAULT_SCHEDULER_CONF)
    make_queue("default")  # transactional tests flush the migrations' rows
    nodes(2, cpu=4)
    names = [f"job-{i}" for i in range(3)]
    for name in names:
        submit(job(name, replicas=2, duration="10s"))  # one second at speed 10

    stack.beat()
    stack.worker("w1")

    wait_for(lambda: completed(names), 60, "the jobs to complete", stack)
    assert SessionRecord.objects.filter(error="", binds__gt=0).exists()
    assert Pod.objects.filter(job__name__in=names, phase="Succeeded").count() == 6
    # The web process's /metrics shows what the worker process measured (shared Redis state).
    redis_cache = {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                   "LOCATION": stack.redis_url}  # fmt: skip
    with override_settings(CACHES={"default": redis_cache}):
        text = Client().get("/metrics").content.decode()
    count = re.search(r"^volcano_e2e_scheduling_latency_milliseconds_count (\S+)$", text, re.M)
    assert count is not None
    assert float(count.group(1)) > 0


def test_split_queues_run_sessions_and_the_kubelet_in_separate_workers(stack: Stack) -> None:
    use_conf(DEFAULT_SCHEDULER_CONF)
    make_queue("default")  # transactional tests flush the migrations' rows
    nodes(2, cpu=4)
    names = [f"split-{i}" for i in range(2)]
    for name in names:
        submit(job(name, replicas=2, duration="10s"))  # one second at speed 10

    stack.env["VOLCANO_CELERY_QUEUES"] = "split"
    stack.beat()
    stack.worker("scheduler")  # consumes celery and scheduler
    stack.worker("kubelet")  # consumes celery and kubelet

    wait_for(lambda: completed(names), 60, "the jobs to complete", stack)
    # (each worker's banner lists every task; a task it ran is logged as "Task name[id] ...")
    sessions, nodes_log = stack.log("scheduler"), stack.log("kubelet")
    assert "Task scheduler.tasks.schedule[" in sessions
    assert "Task kubelet.tasks.runtime_tick[" not in sessions
    assert "Task kubelet.tasks.runtime_tick[" in nodes_log
    assert "Task scheduler.tasks.schedule[" not in nodes_log


def test_sessions_go_on_while_a_controller_pass_is_slow(stack: Stack) -> None:
    use_conf(DEFAULT_SCHEDULER_CONF)
    make_queue("default")  # transactional tests flush the migrations' rows
    nodes(1, cpu=4)
    # The job controller's pass sleeps 4 s when it first reads the job (once in all).
    Failpoint.objects.create(name="controller.job-read", action="delay", value=4, times=1)
    stack.worker("w1", {"VOLCANO_FAILPOINTS_ENABLED": "1"})
    stack.beat()
    wait_for(SessionRecord.objects.exists, 60, "a first session", stack)

    submit(job("slow", duration="10s"))
    wait_for(lambda: Failpoint.objects.get().times == 0, 60, "the controller to read it", stack)
    asleep = timezone.now()
    time.sleep(2.5)  # still inside the controller's 4 s

    # Sessions (every 0.3 s) were not held up by the sleeping controllers...
    assert SessionRecord.objects.filter(started_at__gt=asleep, error="").count() >= 3
    wait_for(lambda: completed(["slow"]), 60, "the job to complete", stack)
    # ...and no session's latency counts the controllers' pass.
    assert not SessionRecord.objects.filter(e2e_ms__gte=4000).exists()
    assert Pod.objects.get(job__name="slow").phase == "Succeeded"


def test_two_workers_started_together_never_lead_at_once(stack: Stack) -> None:
    use_conf(DEFAULT_SCHEDULER_CONF)
    make_queue("default")  # transactional tests flush the migrations' rows
    nodes(1)
    stack.worker("w1")
    stack.worker("w2")
    # Both consume before the first tick, so the ticks are shared and the lease is contended.
    wait_for(lambda: all("ready." in stack.log(n) for n in ("w1", "w2")), 60, "workers", stack)
    stack.beat()
    # Besides the beat's ticks (which Redis may hand to one worker), send each worker its own
    # cycles at the same moments, so the two always contend for the lease.
    sender = Celery("contention", broker=stack.redis_url)  # the workers' broker database
    for _ in range(10):
        for name in ("w1", "w2"):
            sender.send_task("scheduler.tasks.schedule", queue=name)
        time.sleep(0.3)
    wait_for(lambda: SessionRecord.objects.count() >= 20, 60, "twenty sessions", stack)
    stack.stop_all()

    sessions = list(
        SessionRecord.objects.order_by("started_at").values_list("started_at", "e2e_ms")
    )
    for (start, ms), (next_start, _) in itertools.pairwise(sessions):
        assert start + timedelta(milliseconds=ms) <= next_start, "two sessions overlapped"
    ran = [n for n in ("w1", "w2") if "'ran'" in stack.log(n)]
    stood_by = [n for n in ("w1", "w2") if "'standby'" in stack.log(n)]
    assert ran, "no worker ran a session"
    assert ran == ["w1", "w2"] or stood_by, "one worker ran everything without ever contending"


def test_a_killed_leader_is_replaced_and_no_pod_is_lost_or_bound_twice(stack: Stack) -> None:
    use_conf(DEFAULT_SCHEDULER_CONF)
    make_queue("default")  # transactional tests flush the migrations' rows
    nodes(2, cpu=4)
    stack.beat()
    w1 = stack.worker("w1")
    wait_for(lambda: SessionRecord.objects.exists(), 60, "a first session", stack)
    stack.worker("w2")
    names = [f"job-{i}" for i in range(6)]
    for name in names:
        submit(job(name, replicas=2, duration="20s"))
    # Kill w1 while it holds the lease, that is during one of its cycles. The beat's two tasks
    # may fall into step with the two workers (w1 always taking the kubelet's tick, w2 always
    # the cycle), so w1 is also sent cycles on its own queue; a cycle holds the lease for tens
    # of milliseconds, so the lease is watched closely.
    redis = stack.redis()
    sender = Celery("drive-w1", broker=stack.redis_url)
    w1_pid = str(w1.pid).encode()

    def w1_holds_lease() -> bool:
        sender.send_task("scheduler.tasks.schedule", queue="w1")
        for _ in range(100):
            if (redis.get(LEASE_KEY) or b"").split(b":")[1:2] == [w1_pid]:
                return True
            time.sleep(0.003)
        return False

    wait_for(w1_holds_lease, 30, "w1 to hold the lease", stack)
    stack.kill("w1")
    killed_at = time.monotonic()

    wait_for(lambda: completed(names), 90, "every job to complete after the kill", stack)

    assert time.monotonic() - killed_at < 90
    assert re.search(r"'ran'", stack.log("w2")), "w2 never took over"
    for name in names:
        pods = list(Pod.objects.filter(job__name=name).values_list("name", "phase"))
        assert sorted(p for p, _ in pods) == [f"{name}-work-0", f"{name}-work-1"]
        assert {phase for _, phase in pods} == {"Succeeded"}
