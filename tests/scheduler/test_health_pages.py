"""The scheduler's health page and the Overview's card: the verdict, the leader and workers,
the controllers' lag and the misconfigurations, each with the link that fixes it."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from kube.models import ChangeEvent
from scheduler.heartbeat import beat
from scheduler.leader import make_lease
from scheduler.models import SchedulerConfiguration, SessionRecord
from scheduler.worker import run_once
from tests.scheduler.factories import make_queue, use_conf

pytestmark = pytest.mark.django_db

HEALTH = reverse("scheduler:health")


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """The heartbeats live in the shared cache: each test starts without any."""
    cache.clear()
    yield
    cache.clear()


def session(seconds_ago: float, e2e_ms: float = 12.0, **fields: Any) -> SessionRecord:
    started = timezone.now() - dt.timedelta(seconds=seconds_ago)
    return SessionRecord.objects.create(started_at=started, e2e_ms=e2e_ms, **fields)


def text(response: Any) -> str:
    assert response.status_code == 200
    return html.unescape(" ".join(response.content.decode().split()))


def test_a_fresh_session_says_scheduling_with_its_share_of_the_period(console_login: Any) -> None:
    session(0.3, e2e_ms=12.0, binds=4)
    page = text(console_login("vera", "viewer").get(HEALTH))
    assert 'data-verdict="ok"' in page
    assert "Scheduling: last session" in page
    assert "12 ms of its 1 s period" in page


def test_a_stale_session_says_not_scheduling_and_asks_about_the_worker(
    console_login: Any,
) -> None:
    session(180.0)
    page = text(console_login("vera", "viewer").get(HEALTH))
    assert 'data-verdict="stale"' in page
    assert "Not scheduling: no session for 3 minutes — is the worker running?" in page


def test_no_session_at_all_says_not_scheduling(console_login: Any) -> None:
    page = text(console_login("vera", "viewer").get(HEALTH))
    assert 'data-verdict="none"' in page
    assert "Not scheduling: no session recorded yet — is the worker running?" in page


def test_a_failed_and_a_slow_session_are_named(console_login: Any) -> None:
    client = console_login("olga", "operator")
    session(0.5, error="RuntimeError: lost the scheduler lease before writing")
    page = text(client.get(HEALTH))
    assert "Sessions fail: the last one" in page
    assert "lost the scheduler lease" in page
    session(0.2, e2e_ms=1400.0)
    page = text(client.get(HEALTH))
    assert "Scheduling late: last session" in page
    assert "took 1.4 s, longer than its 1 s" in page


def test_a_closed_queue_with_waiting_jobs_is_listed_with_its_page(console_login: Any) -> None:
    session(0.3)
    make_queue("batch", state="Closed", pending=3)
    make_queue("idle", state="Closed", pending=0)  # closed and empty: nothing wrong
    page = text(console_login("olga", "operator").get(HEALTH))
    assert "Queue batch is Closed: 3 jobs wait in it and cannot be scheduled." in page
    assert f'href="{reverse("queues:queue_detail", args=["batch"])}"' in page
    assert "Queue idle" not in page


def test_a_zero_capability_and_an_ignored_hierarchy_are_listed(console_login: Any) -> None:
    use_conf()  # no capacity plugin, so no hierarchy
    make_queue("gpu", capability={"cpu": 0, "memory": 1000})
    make_queue("team", parent="gpu")
    page = text(console_login("olga", "operator").get(HEALTH))
    assert "Queue gpu has a cpu capability of 0: no job that requests cpu can enter it." in page
    assert f'href="{reverse("queues:queue_edit", args=["gpu"])}"' in page
    assert "1 queue names a parent (team)" in page
    assert "the hierarchy is ignored" in page


def test_an_unknown_plugin_argument_in_the_active_policy_is_listed_with_the_editor(
    console_login: Any,
) -> None:
    """A row written past the editor's check (its parser refuses the name) fails every
    session; the page says why and links to the editor."""
    row = use_conf()
    bad = row.text + "    arguments:\n      binpack.wieght: 3\n"
    SchedulerConfiguration.objects.filter(pk=row.pk).update(text=bad)
    page = text(console_login("olga", "operator").get(HEALTH))
    assert "The active policy does not parse, so every session fails" in page
    assert "binpack.wieght: unknown argument for plugin 'binpack'" in page
    assert f'href="{reverse("scheduler:policy")}"' in page


def test_an_argument_the_plugin_never_reads_is_listed(console_login: Any) -> None:
    use_conf(
        'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n'
        "  - name: binpack\n    enableNodeOrder: false\n    arguments:\n"
        "      binpack.weight: 5\n"
    )
    page = text(console_login("olga", "operator").get(HEALTH))
    assert (
        "Argument binpack.weight of plugin binpack is ignored: the plugin reads it only with "
        "enableNodeOrder on (tiers[0].plugins[1].arguments.binpack.weight)." in page
    )


def test_the_controllers_lag_is_shown(console_login: Any) -> None:
    client = console_login("olga", "operator")
    use_conf()
    page = text(client.get(HEALTH))
    assert "No controller pass recorded since the scheduler started." in page
    run_once()
    page = text(client.get(HEALTH))
    assert "Controllers are up to date" in page or "Controllers keep up" in page
    assert "<dt>jobs</dt>" in page  # each controller's duration
    make_queue("late")  # written after the pass, two minutes ago
    ChangeEvent.objects.filter(name="late").update(
        created_at=timezone.now() - dt.timedelta(minutes=2)
    )
    page = text(client.get(HEALTH))
    assert "Controllers are behind: the oldest unreconciled change is 2 minutes old." in page
    run_once()
    assert "Controllers are behind" not in text(client.get(HEALTH))


def test_the_leader_and_each_worker_heartbeat_are_shown(console_login: Any) -> None:
    session(0.3, worker="node-a:11:aaaaaa")
    # The lease where this deployment keeps it (Redis in the distributed mode, else the table).
    lease = make_lease(ttl=15, holder="node-a:11:aaaaaa")
    assert lease.acquire()
    beat("node-a:11:aaaaaa", leading=True, mode="celery")
    beat("node-b:12:bbbbbb", leading=False, mode="celery")
    page = text(console_login("olga", "operator").get(HEALTH))
    assert "<dt>Holder</dt><dd><code>node-a:11:aaaaaa</code></dd>" in page
    assert "Lease expires</dt><dd>in 1" in page  # 15 s, less the time the test took
    rows = page[page.index('id="health-workers"') :]
    assert rows.index("node-a:11:aaaaaa") < rows.index("node-b:12:bbbbbb")
    assert "leader" in rows
    assert "standby" in rows
    lease.release()  # a Redis lease outlives the test's database


def test_viewers_see_the_verdict_only(console_login: Any) -> None:
    session(0.3, worker="node-a:11:aaaaaa")
    make_queue("batch", state="Closed", pending=3)
    page = text(console_login("vera", "viewer").get(HEALTH))
    assert "Scheduling: last session" in page
    assert "Queue batch" not in page
    assert "node-a" not in page
    assert 'id="health-details"' not in page


def test_the_overview_card_says_the_verdict_and_counts_problems_for_operators(
    console_login: Any,
) -> None:
    session(0.3)
    make_queue("batch", state="Closed", pending=3)
    viewer = text(console_login("vera", "viewer").get(reverse("overview")))
    assert "Scheduling: last session" in viewer
    assert "problem" not in viewer
    assert f'href="{HEALTH}"' in viewer
    operator = text(console_login("olga", "operator").get(reverse("overview")))
    assert "1 problem" in operator


def test_the_overview_card_costs_the_same_queries_with_many_queues(
    console_login: Any, django_assert_max_num_queries: Any
) -> None:
    from scheduler.health import health

    session(0.3)
    use_conf()
    make_queue("a")
    with django_assert_max_num_queries(8) as few:
        health(full=True, processes=False)
    for i in range(60):
        make_queue(f"q{i}", state="Closed", pending=1)
    with django_assert_max_num_queries(len(few.captured_queries)):
        found = health(full=True, processes=False)
    assert len(found.findings) == 60
