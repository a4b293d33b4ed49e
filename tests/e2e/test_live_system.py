"""The live system end to end: queue closing, priority first, small jobs past a waiting gang,
reclaim between queues by weight. Everything goes through admission, the controller, the
scheduler worker and the simulated kubelet, on an injected clock."""

from __future__ import annotations

import pytest

from core.models import Event, Pod
from jobs.models import Job
from kube.status import KubeError
from queues.models import Queue
from queues.services import queue_close
from tests.e2e.stack import Clock, apply_file, job, nodes, submit
from tests.scheduler.factories import make_queue, use_conf

pytestmark = pytest.mark.django_db


def phase(name: str) -> str:
    return Job.objects.get(name=name).phase


def test_a_queue_closed_while_jobs_run_drains_then_closes_and_admits_nothing() -> None:
    nodes(2)
    make_queue("team")
    submit(job("long", queue="team", replicas=2, duration="20s"))
    clock = Clock()
    clock.run_until(lambda: phase("long") == "Running")

    queue_close(queue=Queue.objects.get(name="team"))

    assert Queue.objects.get(name="team").state == "Closing"
    with pytest.raises(KubeError):
        submit(job("late", queue="team"))
    clock.run_until(lambda: Queue.objects.get(name="team").state == "Closed", cycles=60)
    assert phase("long") == "Completed"
    assert not Job.objects.filter(name="late").exists()


def test_the_higher_priority_job_is_scheduled_first() -> None:
    nodes(1, cpu=4)
    apply_file("high-priority-class.yaml")
    submit(job("blocker", replicas=4, duration="10s"))
    clock = Clock()
    clock.run_until(lambda: phase("blocker") == "Running")
    # Two jobs wait for the whole node; the high-priority one was submitted last.
    submit(job("low", replicas=4, duration="10s"))
    submit(job("high", replicas=4, duration="10s", priority_class="high-priority"))

    clock.run_until(lambda: phase("high") == "Running" or phase("low") == "Running", cycles=60)

    assert phase("high") == "Running"
    assert phase("low") in ("Pending", "")


def test_a_small_job_runs_while_a_big_gang_waits_for_room() -> None:
    nodes(1, cpu=4)
    submit(job("holder", replicas=2, cpu=1, duration="30m"))  # 30 cycles at 60x
    clock = Clock()
    clock.run_until(lambda: phase("holder") == "Running")
    submit(job("big", replicas=4, cpu=1, duration="10s"))  # needs the whole node
    submit(job("small", replicas=1, cpu=1, duration="2m"))  # fits beside the holder

    clock.run_until(lambda: phase("small") == "Completed", cycles=20)

    assert phase("big") in ("Pending", "")
    assert not Pod.objects.filter(job__name="big", node__isnull=False).exists()
    clock.run_until(lambda: phase("big") == "Completed", cycles=120)


RECLAIM_CONF = """\
actions: "enqueue, allocate, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""


def test_a_heavier_queue_reclaims_its_share_from_a_lighter_one() -> None:
    use_conf(RECLAIM_CONF)
    nodes(2, cpu=4)
    make_queue("light", weight=1)
    make_queue("heavy", weight=3)
    for i in range(8):  # the light queue takes the whole cluster with one-pod jobs
        submit(job(f"light-{i}", queue="light", duration="10m"))
    clock = Clock()
    clock.run_until(lambda: Pod.objects.filter(phase="Running").count() == 8)
    for i in range(6):
        submit(job(f"heavy-{i}", queue="heavy", duration="10m"))

    clock.run_until(
        lambda: Pod.objects.filter(job__queue="heavy", phase="Running").count() >= 6, cycles=60
    )

    assert Event.objects.filter(reason="Evict").exists()
    light_running = Pod.objects.filter(job__queue="light", phase="Running").count()
    assert light_running == 2  # deserved: 8 CPUs x 1/4
