"""The Pods and PodGroups lists and the "pod issues" roll-up, as each role sees them."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.models import Namespace, Node, Pod
from jobs.models import Job
from jobs.services import job_submit
from queues.models import PodGroup, Queue

pytestmark = pytest.mark.django_db

PODS = "/pods/"
GROUPS = "/podgroups/"
UNSCHEDULABLE = (
    "0/3 nodes are unavailable: 3 Insufficient cpu. The gang of 4 needs room for all its "
    "members at once; preemption is not helpful for scheduling."
)


def _job(name: str, namespace: str = "default") -> Job:
    Namespace.objects.get_or_create(name=namespace)
    return job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"minAvailable": 1, "tasks": [{"name": "main", "replicas": 1, "template": {
            "spec": {"containers": [{"name": "main", "image": "busybox"}]}}}]},
    })  # fmt: skip


def _pod(name: str, namespace: str = "default", **fields: Any) -> Pod:
    return Pod.objects.create(namespace=namespace, name=name, **fields)


def _fragment(client: Any, url: str, target: str) -> str:
    response = client.get(url, headers={"HX-Request": "true", "HX-Target": target})
    assert response.status_code == 200
    return str(response.content.decode())


def _names(body: str, table: str) -> list[str]:
    """Return the names in the rows of ``table`` (the first cell's text)."""
    rows = re.findall(r'<td class="name">(?:<a [^>]*>)?([^<]+)<', body)
    assert table in body
    return [r.strip() for r in rows]


def _stuck(pod: Pod, minutes: int) -> None:
    Pod.objects.filter(pk=pod.pk).update(created_at=timezone.now() - timedelta(minutes=minutes))


def _trouble() -> dict[str, Pod]:
    """One pod of each issue in ``default``, plus a healthy one and a fresh Pending one."""
    node = Node.objects.create(name="node-a")
    pods = {
        "crash": _pod("crash", phase="Running", node=node, restart_count=3,
                      back_off_until=timezone.now() + timedelta(seconds=40)),
        "failed": _pod("failed", phase="Failed", exit_code=1, reason="Error"),
        "evicted": _pod("evicted", phase="Failed", reason="Evicted"),
        "stuck": _pod("stuck", conditions=[{"type": "PodScheduled", "status": "False",
                                            "reason": "Unschedulable", "message": UNSCHEDULABLE}]),
        "fresh": _pod("fresh"),
        "fine": _pod("fine", phase="Running", node=node, pod_ip="10.128.0.7"),
    }  # fmt: skip
    _stuck(pods["stuck"], 6)
    _stuck(pods["fresh"], 2)
    return pods


# --- Pods ----------------------------------------------------------------------------------------
def test_a_viewer_sees_only_pods_and_podgroups_of_granted_namespaces(
    console_login: Callable[..., Any],
) -> None:
    _pod("ours-0", "team-a")
    _pod("theirs-0", "team-b")
    PodGroup.objects.create(namespace="team-a", name="ours-pg")
    PodGroup.objects.create(namespace="team-b", name="theirs-pg")
    client = console_login("vera", "viewer", ("team-a",))
    pods = client.get(PODS).content.decode()
    assert "ours-0" in pods
    assert "theirs-0" not in pods
    # A shared link naming a namespace the user may not read widens nothing.
    assert "theirs-0" not in client.get(f"{PODS}?namespace=team-b").content.decode()
    groups = client.get(GROUPS).content.decode()
    assert "ours-pg" in groups
    assert "theirs-pg" not in groups


def test_pods_filter_by_phase_node_issue_and_name_from_the_url(
    console_login: Callable[..., Any],
) -> None:
    _trouble()
    client = console_login("olga", "operator")
    table = "pods-table"
    assert _names(_fragment(client, f"{PODS}?phase=Running", table), table) == ["crash", "fine"]
    assert _names(_fragment(client, f"{PODS}?node=node-a&q=fi", table), table) == ["fine"]
    assert _names(_fragment(client, f"{PODS}?issue=crashloop", table), table) == ["crash"]
    assert _names(_fragment(client, f"{PODS}?issue=pending", table), table) == ["stuck"]
    assert _names(_fragment(client, f"{PODS}?issue=failed", table), table) == ["failed"]
    assert _names(_fragment(client, f"{PODS}?issue=evicted", table), table) == ["evicted"]
    assert _names(_fragment(client, f"{PODS}?sort=-restarts", table), table)[0] == "crash"


def test_a_pod_row_links_its_job_and_node_and_says_why_it_is_pending(
    console_login: Callable[..., Any],
) -> None:
    job = _job("train")
    node = Node.objects.create(name="node-b")
    _pod("train-main-0", job=job, phase="Running", node=node, pod_ip="10.128.1.9")
    _pod("train-main-1", job=job, conditions=[
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": UNSCHEDULABLE}])  # fmt: skip
    body = console_login("olga", "operator").get(f"{PODS}?job=train").content.decode()
    assert 'href="/jobs/default/train/"' in body
    assert 'href="/nodes/node-b/"' in body
    assert "10.128.1.9" in body
    shown = html.unescape(body)
    assert f'title="{UNSCHEDULABLE}"' in shown  # the whole message on hover
    assert UNSCHEDULABLE[:60] in shown
    assert UNSCHEDULABLE not in shown.replace(f'title="{UNSCHEDULABLE}"', "")  # shortened


def test_the_pods_list_costs_the_same_queries_for_5_or_50_pods(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("olga", "operator")
    node = Node.objects.create(name="node-c")
    job = _job("many")

    def add(start: int, count: int) -> None:
        for i in range(start, start + count):
            _pod(f"p-{i:03d}", job=job, node=node, phase="Running")

    add(0, 5)
    with CaptureQueriesContext(connection) as few:
        client.get(PODS)
    add(5, 45)
    with CaptureQueriesContext(connection) as many:
        client.get(PODS)
    assert len(many) == len(few)


# --- PodGroups -----------------------------------------------------------------------------------
def test_podgroups_show_gang_counts_queue_and_latest_condition_and_filter_by_queue(
    console_login: Callable[..., Any],
) -> None:
    Queue.objects.create(name="research")
    PodGroup.objects.create(
        namespace="default", name="gang-a", queue="research", phase="Pending", min_member=4,
        conditions=[
            {"type": "Scheduled", "status": "False", "reason": "Old",
             "lastTransitionTime": "2025-01-01T00:00:00Z"},
            {"type": "Unschedulable", "status": "True", "reason": "NotEnoughResources",
             "message": "4/4 tasks in gang unschedulable", "lastTransitionTime": "2025-01-01T00:05:00Z"},
        ],
    )  # fmt: skip
    PodGroup.objects.create(namespace="default", name="gang-b", queue="default", phase="Running",
                            min_member=2, running=2)  # fmt: skip
    client = console_login("olga", "operator")
    body = _fragment(client, f"{GROUPS}?queue=research", "podgroups-table")
    assert _names(body, "podgroups-table") == ["gang-a"]
    assert 'href="/queues/research/"' in body
    assert "Unschedulable" in body
    assert "NotEnoughResources" in body
    assert ">Old<" not in body  # only the latest condition
    running = _fragment(client, f"{GROUPS}?phase=Running", "podgroups-table")
    assert _names(running, "podgroups-table") == ["gang-b"]


def test_the_podgroups_list_costs_the_same_queries_for_5_or_50_groups(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("olga", "operator")
    job = _job("gangs")

    def add(start: int, count: int) -> None:
        for i in range(start, start + count):
            PodGroup.objects.create(namespace="default", name=f"g-{i:03d}", job=job)

    add(0, 5)
    with CaptureQueriesContext(connection) as few:
        client.get(GROUPS)
    add(5, 45)
    with CaptureQueriesContext(connection) as many:
        client.get(GROUPS)
    assert len(many) == len(few)


# --- the roll-up ---------------------------------------------------------------------------------
def _rollup(body: str) -> dict[str, tuple[int, str]]:
    """Return issue → (count, link) from a page's roll-up."""
    found = re.findall(
        r'<a class="chip[^"]*" href="([^"]+)" data-issue="(\w+)">.*?<span class="num">(\d+)</span>',
        body,
    )
    return {issue: (int(count), html.unescape(url)) for url, issue, count in found}


def test_the_overview_counts_pod_issues_and_links_each_to_its_pods(
    console_login: Callable[..., Any],
) -> None:
    _trouble()
    _pod("elsewhere-crash", "team-b", phase="Running",
         back_off_until=timezone.now() + timedelta(seconds=10))  # fmt: skip
    client = console_login("vera", "viewer", ("default",))
    rollup = _rollup(_fragment(client, "/", "overview-pod-issues"))
    assert {k: v[0] for k, v in rollup.items()} == {
        "crashloop": 1, "failed": 1, "pending": 1, "evicted": 1}  # fmt: skip
    assert rollup["crashloop"][1] == "/pods/?issue=crashloop"
    listed = _fragment(client, rollup["pending"][1], "pods-table")
    assert _names(listed, "pods-table") == ["stuck"]


def test_the_overview_roll_up_costs_one_query_whatever_the_pods(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("olga", "operator")
    _trouble()
    with CaptureQueriesContext(connection) as few:
        _fragment(client, "/", "overview-pod-issues")
    for i in range(40):
        _pod(f"crash-{i}", phase="Running", back_off_until=timezone.now())
    with CaptureQueriesContext(connection) as many:
        body = _fragment(client, "/", "overview-pod-issues")
    assert len(many) == len(few)
    assert _rollup(body)["crashloop"][0] == 41


def test_a_job_page_counts_its_own_pod_issues_and_links_to_them(
    console_login: Callable[..., Any],
) -> None:
    job = _job("flaky")
    _pod("flaky-main-0", job=job, phase="Running", restart_count=5,
         back_off_until=timezone.now() + timedelta(seconds=80))  # fmt: skip
    _pod("flaky-main-1", job=job, phase="Failed", reason="Evicted")
    _pod("other-0", phase="Failed")  # another job's trouble is not this job's
    client = console_login("olga", "operator")
    rollup = _rollup(client.get("/jobs/default/flaky/").content.decode())
    assert {k: v[0] for k, v in rollup.items()} == {
        "crashloop": 1, "failed": 0, "pending": 0, "evicted": 1}  # fmt: skip
    assert rollup["evicted"][1] == "/pods/?namespace=default&job=flaky&issue=evicted"
    listed = _fragment(client, rollup["crashloop"][1], "pods-table")
    assert _names(listed, "pods-table") == ["flaky-main-0"]


def test_the_pods_entry_of_the_navigation_owns_both_lists(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("olga", "operator")
    for url in (PODS, GROUPS):
        body = client.get(url).content.decode()
        assert re.search(r'<a href="/pods/" aria-current="page" class="active">', body), url
