"""A policy with a ``timeout`` arms a timer: announced as Volcano does, kept across a worker
restart, fired once, and cancelled when the pod recovers."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from core.models import PodPhase
from jobs.controller import reconcile, reconcile_all
from jobs.models import DelayedAction, Job
from tests.jobs.controller_kit import NOW, admit, pods, set_pods, start, task, tick
from tests.kube.api_kit import EVENTS, JOBS, PODS

pytestmark = pytest.mark.django_db

JSON = "application/json"


def _submit(client: Client, name: str, **spec: Any) -> Job:
    body = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"tasks": [task("worker", 2)], **spec},
    }
    response = client.post(JOBS.format(ns="default"), json.dumps(body), content_type=JSON)
    assert response.status_code == 201, response.content
    return Job.objects.get(name=name)


def _messages(client: Client, name: str, reason: str) -> list[str]:
    items = client.get(EVENTS.format(ns="default")).json()["items"]
    return [
        item["message"]
        for item in items
        if item["involvedObject"]["name"] == name and item["reason"] == reason
    ]


def _phase(client: Client, name: str) -> tuple[str, int]:
    status = client.get(f"{JOBS.format(ns='default')}/{name}").json()["status"]
    return status["state"]["phase"], status.get("retryCount", 0)


def _restart_worker() -> None:
    """Forget everything the controller keeps in memory, as a new worker process starts."""
    reconcile._restart()


def test_armed_timer_is_announced_with_volcano_s_words(operator: Client) -> None:
    job = _submit(
        operator,
        "slow",
        policies=[{"event": "PodFailed", "action": "RestartJob", "timeout": "90s"}],
    )
    start(job)
    set_pods(job, PodPhase.FAILED, "slow-worker-0", exit_code=1)

    tick(job)

    assert _messages(operator, "slow", "ExecuteAction") == ["Execute action RestartJob after 1m30s"]
    assert _phase(operator, "slow") == ("Running", 0)
    tick(job, NOW + dt.timedelta(seconds=89))
    assert _phase(operator, "slow") == ("Running", 0)
    tick(job, NOW + dt.timedelta(seconds=90))
    assert _phase(operator, "slow") == ("Restarting", 1)


def test_timer_survives_a_worker_restart_and_fires_exactly_once(operator: Client) -> None:
    job = _submit(
        operator,
        "crashy",
        policies=[{"event": "PodFailed", "action": "RestartJob", "timeout": "5m"}],
    )
    start(job)
    set_pods(job, PodPhase.FAILED, "crashy-worker-0", exit_code=1)
    reconcile_all(NOW + dt.timedelta(seconds=1))
    assert DelayedAction.objects.filter(job=job, fired_at__isnull=True).count() == 1

    _restart_worker()
    for minutes in (6, 7, 8, 9):
        reconcile_all(NOW + dt.timedelta(minutes=minutes))

    assert _phase(operator, "crashy")[1] == 1  # one restart, not one per pass
    assert _messages(operator, "crashy", "Restarting") == [
        "Job phase Running -> Restarting: RestartJob (PodFailed of crashy-worker-0 after its timeout)"
    ]
    assert not DelayedAction.objects.filter(job=job, fired_at__isnull=True).exists()


def test_a_pod_running_again_cancels_its_failed_timer(operator: Client) -> None:
    job = _submit(
        operator, "flaky", policies=[{"event": "PodFailed", "action": "AbortJob", "timeout": "5m"}]
    )
    start(job)
    set_pods(job, PodPhase.FAILED, "flaky-worker-0", exit_code=1)
    tick(job)
    assert DelayedAction.objects.filter(job=job).count() == 1

    set_pods(job, PodPhase.RUNNING, "flaky-worker-0")  # restarted in place, as a kubelet does
    tick(job, NOW + dt.timedelta(minutes=1))
    tick(job, NOW + dt.timedelta(minutes=10))

    assert not DelayedAction.objects.filter(job=job).exists()
    assert _phase(operator, "flaky") == ("Running", 0)


def test_a_pending_timer_goes_when_its_pod_starts(operator: Client) -> None:
    job = _submit(
        operator,
        "queued",
        policies=[{"event": "PodPending", "action": "AbortJob", "timeout": "5m"}],
    )
    tick(job)
    admit(job)
    tick(job)
    tick(job, NOW + dt.timedelta(minutes=1))
    assert DelayedAction.objects.filter(job=job, event="PodPending").count() == 2

    set_pods(job, PodPhase.RUNNING)
    tick(job, NOW + dt.timedelta(minutes=2))
    tick(job, NOW + dt.timedelta(minutes=10))

    assert not DelayedAction.objects.filter(job=job).exists()
    assert _phase(operator, "queued") == ("Running", 0)


def test_two_pods_timers_for_one_job_action_act_once(operator: Client) -> None:
    job = _submit(
        operator, "stuck", policies=[{"event": "PodPending", "action": "AbortJob", "timeout": "5m"}]
    )
    tick(job)
    admit(job)
    tick(job)
    created = pods(job)["stuck-worker-0"].created_at
    tick(job, created + dt.timedelta(minutes=1))

    tick(job, created + dt.timedelta(minutes=5, seconds=1))

    # The first timer aborts the job and cancels the other (same scope): Aborting is seen.
    assert _phase(operator, "stuck")[0] == "Aborting"


def test_deleting_a_pod_under_a_timed_eviction_policy_restarts_after_the_delay(
    operator: Client,
) -> None:
    job = _submit(
        operator,
        "gone",
        policies=[{"event": "PodEvicted", "action": "RestartJob", "timeout": "1m"}],
    )
    start(job)
    response = operator.delete(f"{PODS.format(ns='default')}/gone-worker-0")
    assert response.status_code == 200, response.content
    now = timezone.now()

    tick(job, now)
    assert _messages(operator, "gone", "ExecuteAction") == ["Execute action RestartJob after 1m0s"]
    assert _phase(operator, "gone")[1] == 0  # the pod is re-created; no restart yet

    tick(job, now + dt.timedelta(minutes=2))
    assert _phase(operator, "gone") == ("Restarting", 1)
