"""The controllers beside the sessions (the distributed mode's ``ControllerLoop``): a pass only
while the lease is held, a failing pass that does not stop the loop, and the passes counted in
the metrics with the next session's."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from kube import registry
from kube.registry import Controller
from scheduler.leader import DatabaseLease
from scheduler.models import SessionRecord
from scheduler.worker import ControllerLoop, run_controller_pass, run_leader_cycle

pytestmark = pytest.mark.django_db


def _recording(monkeypatch: Any, ran: list[str], *, fail: bool = False) -> None:
    def reconcile(now: datetime) -> None:
        ran.append("jobs")
        if fail:
            raise RuntimeError("controller down")

    monkeypatch.setattr(registry._REGISTRY, "controllers", {"jobs": Controller("jobs", reconcile)})


def _controller_lists() -> float:
    text = Client().get("/metrics").content.decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if (
                sample.name == "rest_client_requests_total"
                and sample.labels.get("kubernetes_name") == "volcano-controllers-service"
            ):
                return float(sample.value)
    return 0.0


def test_a_controller_pass_runs_only_while_the_lease_is_held(monkeypatch: Any) -> None:
    ran: list[str] = []
    _recording(monkeypatch, ran)
    DatabaseLease(ttl=60, holder="other").acquire()

    assert not run_controller_pass(DatabaseLease(ttl=60, holder="me"))
    assert ran == []

    DatabaseLease(ttl=60, holder="other").release()
    assert run_controller_pass(DatabaseLease(ttl=60, holder="me"))
    assert ran == ["jobs"]


def test_a_cycle_beside_the_controllers_runs_none_and_counts_their_passes(
    monkeypatch: Any,
) -> None:
    ran: list[str] = []
    _recording(monkeypatch, ran)
    lease = DatabaseLease(ttl=60, holder="me")
    run_leader_cycle(lease, reconcile=False)  # counts whatever passes came before
    before = _controller_lists()

    assert run_controller_pass(lease)
    assert run_controller_pass(lease)
    summary = run_leader_cycle(lease, reconcile=False)

    assert summary is not None
    assert summary.error == ""
    assert ran == ["jobs", "jobs"]  # the cycle itself ran no controller
    assert _controller_lists() == before + 2  # both passes, with the session's figures


@pytest.mark.django_db(transaction=True)
def test_a_failing_pass_is_logged_and_the_loop_goes_on(
    monkeypatch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    ran: list[str] = []
    _recording(monkeypatch, ran, fail=True)
    loop = ControllerLoop(DatabaseLease(ttl=5, holder="loop"), period=0.05)
    loop.start()
    deadline = time.monotonic() + 20
    while len(ran) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    loop.stop(timeout=10)

    assert not loop.is_alive()
    assert len(ran) >= 3  # each period tried again
    assert loop.passes == 0  # none ran to the end
    assert "controller pass failed" in caplog.text
    assert not SessionRecord.objects.exists()  # a controller failure is not a session's
