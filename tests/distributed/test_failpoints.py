"""Crash recovery: a worker killed at each failpoint, the other converges, nothing lost or doubled.

Two Celery workers run with ``VOLCANO_FAILPOINTS_ENABLED``; one ``Failpoint`` row arms the point
with ``kill`` for one firing in all (counted on its own connection, so it survives the kill).
Whichever worker leads when the point is reached dies there as SIGKILL would leave it (exit 137,
its transaction rolled back by PostgreSQL, its lease left to expire); the other takes the lease
over and the test checks the end state.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest

from core.models import Event, Pod
from jobs.models import Command, CommandAction, Job
from jobs.services import command_issue
from kube.models import Failpoint
from scheduler.defaults import DEFAULT_SCHEDULER_CONF
from scheduler.models import SessionRecord
from scheduler.services import pod_evict
from tests.distributed.celery_kit import Stack, completed, wait_for
from tests.e2e.stack import job, nodes, submit
from tests.scheduler.factories import make_queue, use_conf

Workers = list[subprocess.Popen[bytes]]


def armed_stack(stack: Stack, point: str, match: str = "") -> Workers:
    """Arm ``point`` to kill once, start two workers and the beat on two 4-CPU nodes."""
    use_conf(DEFAULT_SCHEDULER_CONF)
    make_queue("default")  # transactional tests flush the migrations' rows
    nodes(2, cpu=4)
    Failpoint.objects.create(name=point, action="kill", match=match, times=1)
    env = {"VOLCANO_FAILPOINTS_ENABLED": "1"}
    workers = [stack.worker("w1", env), stack.worker("w2", env)]
    stack.beat()
    return workers


def one_killed(stack: Stack, workers: Workers) -> None:
    """Wait for exactly one worker to die at the failpoint (exit 137); the row is used up."""
    wait_for(lambda: any(w.poll() is not None for w in workers), 60, "a kill", stack)
    assert sorted(w.returncode for w in workers if w.poll() is not None) == [137]
    assert Failpoint.objects.get().times == 0


def until(done: Callable[[], bool], what: str, stack: Stack) -> None:
    wait_for(done, 60, what, stack)


def pods_of(name: str) -> list[tuple[str, str]]:
    return sorted(Pod.objects.filter(job__name=name).values_list("name", "phase"))


@pytest.mark.parametrize("point", ["controller.job-read", "controller.pods-committed"])
def test_a_job_converges_once_after_a_kill_in_the_controller(stack: Stack, point: str) -> None:
    workers = armed_stack(stack, point)
    submit(job("crash", replicas=2, duration="10s"))

    one_killed(stack, workers)
    until(lambda: completed(["crash"]), "the job to complete", stack)

    assert pods_of("crash") == [("crash-work-0", "Succeeded"), ("crash-work-1", "Succeeded")]
    assert Job.objects.get(name="crash").retry_count == 0


def test_a_command_taken_by_a_killed_worker_is_executed_once(stack: Stack) -> None:
    workers = armed_stack(stack, "controller.command-taken")
    submit(job("long", replicas=2, duration="600s"))
    until(lambda: Job.objects.filter(name="long", phase="Running").exists(), "Running", stack)

    command = command_issue(job=Job.objects.get(name="long"), action=CommandAction.ABORT_JOB)
    one_killed(stack, workers)
    until(lambda: Job.objects.filter(name="long", phase="Aborted").exists(), "Aborted", stack)

    assert not Command.objects.exists()
    executed = Event.objects.filter(involved_name="long", message__contains=command.name)
    assert executed.filter(reason="ExecuteAction").count() == 1


def test_an_eviction_interrupted_by_a_kill_counts_one_retry(stack: Stack) -> None:
    workers = armed_stack(stack, "controller.pod-delete")
    submit(job("evicted", replicas=2, duration="600s"))
    until(lambda: Job.objects.filter(name="evicted", phase="Running").exists(), "Running", stack)

    assert pod_evict(pod=Pod.objects.get(name="evicted-work-0"))
    one_killed(stack, workers)

    def restarted() -> bool:
        running = Pod.objects.filter(job__name="evicted", phase="Running", deletion_time=None)
        return Job.objects.filter(name="evicted", phase="Running", retry_count__gte=1).exists() \
            and running.count() == 2  # fmt: skip

    until(restarted, "the job to run again after one restart", stack)
    assert Job.objects.get(name="evicted").retry_count == 1
    assert [name for name, _ in pods_of("evicted")] == ["evicted-work-0", "evicted-work-1"]


@pytest.mark.parametrize(
    ("point", "match"), [("session.binds-staged", ""), ("bind.node", "node-1")]
)
def test_a_gang_is_bound_whole_or_not_at_all_across_a_kill(
    stack: Stack, point: str, match: str
) -> None:
    workers = armed_stack(stack, point, match)
    submit(job("gang", replicas=4, cpu=2, duration="10s"))

    one_killed(stack, workers)
    until(lambda: completed(["gang"]), "the gang to complete", stack)

    assert [phase for _, phase in pods_of("gang")] == ["Succeeded"] * 4
    binds = list(SessionRecord.objects.filter(binds__gt=0).values_list("binds", flat=True))
    assert binds == [4]  # one session bound the whole gang; the killed one bound nothing
