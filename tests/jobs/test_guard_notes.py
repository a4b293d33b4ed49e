"""A job's page and its queue's say what guards its pods (budgets, cool-downs) and what holds
it back (a ResourceQuota at enqueue), from the rows the cluster's controllers write."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apis.wire import format_time
from core.disruption import reconcile_disruption_budgets
from core.events import record_event
from core.models import Namespace, Node, Pod, PodDisruptionBudget
from jobs.models import Job
from jobs.services import job_submit
from queues.models import PodGroup
from scheduler.engine.api.quota_info import QuotaInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.plugins.resourcequota import quota_refusal
from tests.scheduler.factories import make_queue

pytestmark = pytest.mark.django_db


def _job(name: str, namespace: str = "team-a") -> Job:
    Namespace.objects.get_or_create(name=namespace)
    make_queue("default")
    return job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"minAvailable": 1, "queue": "default", "tasks": [{"name": "main", "replicas": 2,
                 "template": {"spec": {"containers": [{"name": "main", "image": "busybox"}]}}}]},
    })  # fmt: skip


def _running(job: Job, index: int, *, labels: dict[str, str], scheduled_ago: float = 0) -> Pod:
    node, _ = Node.objects.get_or_create(name="node-a")
    stamp = format_time(timezone.now() - timedelta(seconds=scheduled_ago))
    return Pod.objects.create(
        namespace=job.namespace, name=f"{job.name}-main-{index}", job=job, task_name="main",
        task_index=index, phase="Running", node=node, labels=labels,
        conditions=[{"type": "PodScheduled", "status": "True", "lastTransitionTime": stamp}],
    )  # fmt: skip


def _page(client: Any, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return str(html.unescape(response.content.decode()))


def _held_by_quota(job: Job) -> PodGroup:
    """Make ``job`` wait Pending with the resourcequota plugin's refusal on its PodGroup."""
    group = PodGroup.objects.create(namespace=job.namespace, name=f"{job.name}-pg", job=job,
                                    queue=job.queue, phase="Pending", min_member=1)  # fmt: skip
    quota = QuotaInfo("compute", job.namespace, hard=Resource({"requests.cpu": 4000}),
                      used=Resource({"requests.cpu": 3000}))  # fmt: skip
    message = quota_refusal(quota, Resource({"requests.cpu": 2000}), Resource())
    assert message is not None
    record_event(group, kind="PodGroup", reason="Unschedulable", message=message,
                 now=timezone.now(), source="volcano")  # fmt: skip
    return group


def test_a_budget_with_no_disruption_left_protects_the_job_pods(
    console_login: Callable[..., Any],
) -> None:
    job = _job("train")
    _running(job, 0, labels={"app": "train"})
    _running(job, 1, labels={"app": "train"})
    PodDisruptionBudget.objects.create(namespace="team-a", name="keep-train",
                                       spec={"minAvailable": 2, "selector": {"matchLabels": {"app": "train"}}})  # fmt: skip
    PodDisruptionBudget.objects.create(namespace="team-a", name="other",
                                       spec={"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}})  # fmt: skip
    reconcile_disruption_budgets(timezone.now())
    body = _page(console_login("vera", "viewer", ("team-a",)), "/jobs/team-a/train/")
    assert (
        "PodDisruptionBudget keep-train: 0 disruptions allowed, protects 2 pods from preemption and reclaim."
        in body
    )
    assert "other" not in body.split('id="job-guards"')[1].split("</section>")[0]


def test_a_budget_that_still_allows_disruptions_says_how_many(
    console_login: Callable[..., Any],
) -> None:
    job = _job("train")
    _running(job, 0, labels={"app": "train"})
    PodDisruptionBudget.objects.create(namespace="team-a", name="loose", disruptions_allowed=3,
                                       spec={"maxUnavailable": 3, "selector": {"matchLabels": {"app": "train"}}})  # fmt: skip
    body = _page(console_login("olga", "operator"), "/jobs/team-a/train/")
    assert "PodDisruptionBudget loose selects 1 of its pods: 3 disruptions allowed." in body
    assert "protects" not in body


def test_pods_in_cool_down_are_listed_until_when(console_login: Callable[..., Any]) -> None:
    job = _job("train")
    cooling = _running(job, 0, labels={"volcano.sh/cooldown-time": "10m"}, scheduled_ago=60)
    _running(job, 1, labels={"volcano.sh/cooldown-time": "1m"}, scheduled_ago=120)  # over
    body = _page(console_login("olga", "operator"), "/jobs/team-a/train/")
    assert "1 pod cools down (volcano.sh/cooldown-time)" in body
    # Ten minutes after its PodScheduled condition, as the cdp plugin counts it.
    scheduled = dt.datetime.fromisoformat(cooling.conditions[0]["lastTransitionTime"])
    until = timezone.localtime(scheduled + timedelta(minutes=10)).strftime("%H:%M:%S")
    assert f"train-main-0 until {until}" in body
    assert "train-main-1 until" not in body


def test_a_job_with_no_guard_has_no_note(console_login: Callable[..., Any]) -> None:
    job = _job("train")
    _running(job, 0, labels={"app": "train"})
    body = _page(console_login("olga", "operator"), "/jobs/team-a/train/")
    assert 'id="job-guards"' not in body


def test_why_waiting_names_the_quota_that_holds_the_job(
    console_login: Callable[..., Any],
) -> None:
    job = _job("big")
    _held_by_quota(job)
    body = _page(console_login("vera", "viewer", ("team-a",)), "/jobs/team-a/big/")
    why = body.split('id="why-waiting"')[1].split("</section>")[0]
    assert "Held at enqueue by ResourceQuota team-a/compute" in why
    assert "resource quota insufficient, requested: map[requests.cpu:2]" in why
    # The jobs list's one-liner says it too.
    listing = _page(console_login("olga", "operator"), "/jobs/")
    assert "Held at enqueue by ResourceQuota team-a/compute" in listing


def test_a_later_refusal_for_another_cause_replaces_the_quota_one(
    console_login: Callable[..., Any],
) -> None:
    job = _job("big")
    group = _held_by_quota(job)
    record_event(group, kind="PodGroup", reason="Unschedulable", now=timezone.now() + timedelta(seconds=5),
                 message="0/1 nodes are unavailable: 1 Insufficient cpu.", source="volcano")  # fmt: skip
    body = _page(console_login("olga", "operator"), "/jobs/team-a/big/")
    assert "Held at enqueue by ResourceQuota" not in body


def test_the_queue_page_sums_up_quota_holds_and_protected_pods(
    console_login: Callable[..., Any],
) -> None:
    _held_by_quota(_job("big"))
    running = _job("train")
    _running(running, 0, labels={"app": "train", "volcano.sh/cooldown-time": "1h"})
    _running(running, 1, labels={"app": "train"})
    PodDisruptionBudget.objects.create(namespace="team-a", name="keep-train",
                                       spec={"minAvailable": 2, "selector": {"matchLabels": {"app": "train"}}})  # fmt: skip
    reconcile_disruption_budgets(timezone.now())
    client = console_login("olga", "operator")
    with CaptureQueriesContext(connection) as queries:
        body = _page(client, "/queues/default/jobs/")
    assert "1 job held by a ResourceQuota" in body
    assert "2 running pods protected by a PodDisruptionBudget" in body
    assert "1 running pod in cool-down" in body
    budget_reads = [q for q in queries.captured_queries if "poddisruptionbudget" in q["sql"]]
    assert len(budget_reads) == 1
    # A viewer of another namespace sees none of it.
    other = _page(console_login("vic", "viewer", ("team-b",)), "/queues/default/jobs/")
    assert 'id="queue-guards"' not in other


def test_an_evicted_pod_names_the_action_and_plugin_that_chose_it(
    console_login: Callable[..., Any],
) -> None:
    job = _job("spot")
    shuffled = _running(job, 0, labels={})
    operator = _running(job, 1, labels={})
    Pod.objects.filter(pk=shuffled.pk).update(reason="Evicted", message="shuffle (tdm)",
                                              deletion_time=timezone.now())  # fmt: skip
    Pod.objects.filter(pk=operator.pk).update(reason="Evicted", message="evicted by an operator",
                                              deletion_time=timezone.now())  # fmt: skip
    client = console_login("olga", "operator")
    for url in ("/jobs/team-a/spot/", "/pods/?namespace=team-a"):
        body = _page(client, url)
        assert "evicted by shuffle (tdm)" in body
        assert "evicted by an operator" in body
        assert "evicted by evicted" not in body
