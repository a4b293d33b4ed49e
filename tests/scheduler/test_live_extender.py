"""The extender plugin, live: an active conf names an HTTP extender and the worker obeys it.

The extender runs on a loopback port; jobs go in through the service every entry point uses
and the system runs as in production (controller, scheduling session, simulated kubelet).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from core.models import Pod
from kubelet import runtime
from scheduler.worker import run_once
from tests.engine.plugins.fake_extender import running_extender
from tests.jobs.controller_kit import submit, task
from tests.scheduler.factories import make_node, use_conf

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


def extender_conf(url: str, *, ignorable: bool = False) -> str:
    return (
        'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: priority\n'
        "  - name: gang\n  - name: conformance\n- plugins:\n  - name: predicates\n"
        "  - name: nodeorder\n  - name: extender\n    arguments:\n"
        f"      extender.urlPrefix: {url}\n      extender.httpTimeout: 200ms\n"
        f"      extender.ignorable: {str(ignorable).lower()}\n"
        "      extender.onSessionOpenVerb: onSessionOpen\n"
        "      extender.onSessionCloseVerb: onSessionClose\n"
        "      extender.predicateVerb: predicate\n"
    )


def refuse_n1(body: Any) -> dict[str, Any]:
    if body["node"]["Name"] == "n1":
        return {"status": "node n1 is drained by the extender", "code": 2}
    return {"status": "", "code": 0}


def run(seconds: int) -> None:
    now = START
    for _ in range(seconds):
        now += dt.timedelta(seconds=1)
        record = run_once(now=now).record
        assert record is not None
        assert record.error == ""
        runtime.tick(now=now)


def test_the_worker_keeps_pods_off_the_node_the_extender_refuses() -> None:
    make_node("n1", cpu=8)
    make_node("n2", cpu=8)
    with running_extender(predicate=refuse_n1) as ext:
        use_conf(extender_conf(ext.url))
        submit("spread", [task("w", 3)])
        run(3)

    placed = Pod.objects.filter(name__startswith="spread-", node__isnull=False)
    assert placed.count() == 3
    assert set(placed.values_list("node__name", flat=True)) == {"n2"}
    verbs = ext.verbs()
    assert verbs.count("onSessionOpen") == verbs.count("onSessionClose") >= 1


def test_a_dead_extender_that_is_ignorable_does_not_stop_scheduling() -> None:
    make_node("n1", cpu=8)
    with running_extender() as ext:
        url = ext.url  # closed once the block ends: every call fails
    use_conf(extender_conf(url, ignorable=True))
    submit("solo", [task("w", 2)])
    run(3)

    assert Pod.objects.filter(name__startswith="solo-", node__isnull=False).count() == 2
