"""Why a job waits, in plain words, for six situations each built as a real cluster state:
jobs submitted through the services, the controller and the scheduler run by the worker."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from core.models import PriorityClass
from jobs.selectors import job_page
from jobs.services import job_submit
from kubelet import runtime
from queues.models import Queue
from scheduler.worker import run_once
from tests.scheduler.factories import make_node, make_queue, use_conf

pytestmark = pytest.mark.django_db

# No proportion: enqueue admits every job, so the gang and predicates get their say.
ALLOCATE_ONLY = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
"""


def _job(name: str, *, replicas: int, min_available: int, cpu: str = "1", queue: str = "default",
         tolerations: list[dict[str, Any]] | None = None, priority_class: str = "") -> None:  # fmt: skip
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "busybox",
                            "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}  # fmt: skip
    if tolerations:
        spec["tolerations"] = tolerations
    job_spec: dict[str, Any] = {
        "minAvailable": min_available, "queue": queue, "schedulerName": "volcano",
        "tasks": [{"name": "worker", "replicas": replicas, "template": {"spec": spec}}],
    }  # fmt: skip
    if priority_class:
        job_spec["priorityClassName"] = priority_class
    job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default"}, "spec": job_spec,
    })  # fmt: skip


def _kinds(user: Any, name: str) -> list[str]:
    return [r.kind for r in job_page(user, "default", name).wait.reasons]


@pytest.fixture
def operator(console_login: Callable[..., Any]) -> Any:
    return console_login("olga", "operator").user


def test_a_job_in_a_closed_queue_says_the_queue_admits_nothing(operator: Any) -> None:
    make_node("n1", cpu=8)
    make_queue("research")
    _job("closed", replicas=1, min_available=1, queue="research")
    Queue.objects.filter(name="research").update(state="Closed")
    run_once()

    page = job_page(operator, "default", "closed")
    assert page.wait.reasons[0].kind == "queue-closed"
    assert "research is Closed" in page.wait.summary


def test_a_job_over_its_queues_capability_names_the_resource_and_numbers(operator: Any) -> None:
    make_node("n1", cpu=8)
    make_queue("small", capability={"cpu": 2000})
    _job("too-big", replicas=3, min_available=3, queue="small")
    run_once()
    run_once()

    reason = job_page(operator, "default", "too-big").wait.reasons[0]
    assert reason.kind == "over-capability"
    assert "cpu: needs 3 cores, queue has 2 cores left of its capability 2 cores" in reason.details


def test_a_job_enqueue_has_not_admitted_says_what_it_waits_for(operator: Any) -> None:
    make_node("n1", cpu=2)
    _job("huge", replicas=4, min_available=4, cpu="2")
    run_once()
    run_once()

    page = job_page(operator, "default", "huge")
    assert page.group is not None
    assert page.group.phase == "Pending"
    assert [r.kind for r in page.wait.reasons] == ["enqueue"]  # no pods yet: nothing else
    assert "more than the whole cluster has" in page.wait.summary
    assert "cpu 8" in page.wait.summary
    assert page.wait.reasons[0].details == (
        "cpu: needs 8 cores, the cluster's ready nodes have 2 cores in all",
    )


def test_a_gang_short_of_min_available_says_how_many_can_be_placed(operator: Any) -> None:
    use_conf(ALLOCATE_ONLY)
    make_node("n1", cpu=2)
    _job("gang", replicas=3, min_available=3)
    run_once()
    run_once()

    page = job_page(operator, "default", "gang")
    kinds = [r.kind for r in page.wait.reasons]
    assert "gang" in kinds
    gang = next(r for r in page.wait.reasons if r.kind == "gang")
    assert "minAvailable 3" in gang.text
    assert any("unschedulable" in d.lower() for d in gang.details)


def test_pending_pods_say_which_predicates_rejected_which_nodes(operator: Any) -> None:
    use_conf(ALLOCATE_ONLY)
    make_node("tainted", cpu=8, taints=[{"key": "gpu", "value": "yes", "effect": "NoSchedule"}])
    make_node("tiny", cpu=1, memory_gi=1)
    _job("picky", replicas=1, min_available=1, cpu="2")
    run_once()
    run_once()

    page = job_page(operator, "default", "picky")
    predicates = next(r for r in page.wait.reasons if r.kind == "predicates")
    assert predicates.text == "Task worker: no node fits its pending pods."
    detail = " ".join(predicates.details)
    assert "0/2 nodes are unavailable" in detail
    assert "taint" in detail
    assert "Insufficient cpu" in detail


def test_a_job_behind_others_in_its_queue_names_them_in_order(operator: Any) -> None:
    use_conf(ALLOCATE_ONLY)
    make_node("n1", cpu=1)
    _job("first", replicas=2, min_available=2)
    _job("second", replicas=2, min_available=2)
    run_once()
    run_once()

    page = job_page(operator, "default", "second")
    assert page.wait.position == 2
    assert [j.name for j in page.wait.ahead] == ["first"]
    assert "order" in _kinds(operator, "second")
    assert job_page(operator, "default", "first").wait.position == 1


def test_a_placed_job_is_starting_then_has_nothing_to_explain(operator: Any) -> None:
    make_node("n1", cpu=8, memory_gi=32)
    _job("fits", replicas=2, min_available=2)
    for _ in range(3):
        run_once()
    assert _kinds(operator, "fits") == ["starting"]

    runtime.tick()  # the kubelet acknowledges the binds, then starts the containers
    runtime.tick(now=timezone.now() + timedelta(seconds=10))
    run_once()
    page = job_page(operator, "default", "fits")
    assert page.job.phase == "Running"
    assert page.wait.reasons == []


PREEMPTING = """\
actions: "enqueue, allocate, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
"""


def test_a_pipelined_job_names_the_pods_evicted_for_it_and_folds_volcanos_words(
    operator: Any, console_login: Callable[..., Any]
) -> None:
    use_conf(PREEMPTING)
    PriorityClass.objects.create(name="low", value=10)
    PriorityClass.objects.create(name="high", value=1000)
    make_node("n1", cpu=2)
    _job("filler", replicas=2, min_available=1, priority_class="low")
    for _ in range(3):
        run_once()
    runtime.tick()
    runtime.tick(now=timezone.now() + timedelta(seconds=10))
    _job("urgent", replicas=1, min_available=1, priority_class="high")
    for _ in range(3):
        run_once()

    page = job_page(operator, "default", "urgent")
    pipelined = next(r for r in page.wait.reasons if r.kind == "pipelined")
    assert {(v.node, v.job, v.priority) for v in pipelined.victims} == {("n1", "filler", 10)}
    assert {v.pod for v in pipelined.victims} <= {"filler-worker-0", "filler-worker-1"}
    body = console_login("vera", "viewer", ("default",)).get("/jobs/default/urgent/")
    html = body.content.decode()
    assert "Pods being evicted to make room" in html
    assert 'href="/jobs/default/filler/"' in html


def test_a_gangs_message_is_said_once_not_again_for_each_pod_it_holds(operator: Any) -> None:
    use_conf(ALLOCATE_ONLY)
    make_node("n1", cpu=2)
    _job("gang", replicas=3, min_available=3)
    run_once()
    run_once()

    reasons = job_page(operator, "default", "gang").wait.reasons
    gang = next(r for r in reasons if r.kind == "gang")
    (message,) = gang.details
    assert gang.raw  # folded under the headline on the page
    others = [d for r in reasons if r.kind == "predicates" for d in r.details]
    assert others == ["1 pod(s): 0/1 nodes are unavailable: 1 Insufficient cpu."]
    assert all(message not in d for d in others)
