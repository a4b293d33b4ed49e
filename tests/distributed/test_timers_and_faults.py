"""Timers on the cluster's clock across a worker restart, and deletes that fail during a
restart, on the distributed stack (PostgreSQL, Redis, Celery beat and workers at speed 10)."""

from __future__ import annotations

import time

from core.models import Event, Pod
from jobs.models import CommandAction, Job
from jobs.services import command_issue
from kube.models import Failpoint
from scheduler.defaults import DEFAULT_SCHEDULER_CONF
from tests.distributed.celery_kit import Stack, wait_for
from tests.e2e.stack import job, nodes, submit
from tests.scheduler.factories import make_queue, use_conf

SPEED = 10  # celery_kit's VOLCANO_SIM_SPEED


def _started(stack: Stack, env: dict[str, str] | None = None) -> None:
    use_conf(DEFAULT_SCHEDULER_CONF)
    make_queue("default")  # transactional tests flush the migrations' rows
    nodes(1, cpu=4)
    stack.worker("w1", env)
    stack.beat()


def test_a_delayed_action_and_a_ttl_fire_on_the_cluster_clock_across_a_restart(
    stack: Stack,
) -> None:
    _started(stack)
    # Admitted, but no node has its label: Pending, so the 100 s timeout (10 s of wall) fires.
    stuck = job("stuck", policies=[{"event": "PodPending", "action": "AbortJob",
                                    "timeout": "100s"}])  # fmt: skip
    template = stuck["spec"]["tasks"][0]["template"]  # type: ignore[index]
    template["spec"]["nodeSelector"] = {"zone": "nowhere"}
    submit(stuck)
    done = job("done", duration="10s")
    done["spec"]["ttlSecondsAfterFinished"] = 50  # type: ignore[index]
    submit(done)
    armed = Event.objects.filter(involved_name="stuck", reason="ExecuteAction")
    wait_for(armed.exists, 60, "the timer to be armed", stack)
    wait_for(lambda: Job.objects.filter(name="done", phase="Completed").exists(), 60,
             "the short job to complete", stack)  # fmt: skip

    stack.kill("w1")  # the timers are rows: a new worker finds them
    stack.worker("w1-again")
    since = Pod.objects.get(name="stuck-work-0").created_at
    wait_for(lambda: Job.objects.filter(name="stuck", phase="Aborted").exists(), 60,
             "the PodPending timeout to abort the job", stack)  # fmt: skip
    aborted = time.time() - since.timestamp()
    wait_for(lambda: not Job.objects.filter(name="done").exists(), 60,
             "ttlSecondsAfterFinished to delete the finished job", stack)  # fmt: skip
    stack.stop_all()

    # 100 simulated seconds are 10 wall seconds: fired after them, and far before 100.
    assert 100 / SPEED <= aborted < 60, aborted
    assert Event.objects.filter(involved_name="stuck", reason="Aborting").count() == 1


def test_a_restart_whose_pod_deletes_fail_converges_once_they_succeed(stack: Stack) -> None:
    Failpoint.objects.create(name="controller.pod-delete", action="error", times=4)
    _started(stack, {"VOLCANO_FAILPOINTS_ENABLED": "1"})
    submit(job("train", replicas=2, duration="600s"))
    wait_for(lambda: Job.objects.filter(name="train", phase="Running").exists(), 60, "Running",
             stack)  # fmt: skip

    command_issue(job=Job.objects.get(name="train"), action=CommandAction.RESTART_JOB)
    wait_for(lambda: Job.objects.filter(name="train", phase="Restarting").exists(), 30,
             "Restarting while the deletes fail", stack)  # fmt: skip
    wait_for(lambda: Job.objects.filter(name="train", phase="Running", retry_count=1).exists(),
             90, "the job to run again once deletes succeed", stack)  # fmt: skip
    stack.stop_all()

    assert Failpoint.objects.get().times == 0  # every failing delete was tried
    assert sorted(Pod.objects.filter(job__name="train").values_list("name", flat=True)) == [
        "train-work-0",
        "train-work-1",
    ]
