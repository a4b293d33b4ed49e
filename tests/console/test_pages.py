"""The layout and the Overview as each role sees them; fragments for live refreshes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from jobs.models import Job

pytestmark = pytest.mark.django_db


def test_a_signed_out_visitor_is_sent_to_sign_in() -> None:
    response = Client().get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/")


def test_a_user_without_a_role_is_refused(console_login: Callable[..., Any]) -> None:
    assert console_login("nobody", None).get("/").status_code == 403


def test_the_layout_shows_the_user_role_and_granted_namespaces_only(
    console_login: Callable[..., Any],
) -> None:
    Job.objects.create(namespace="team-b", name="other")
    client = console_login("ada", "submitter", ("team-a", "team-c"))
    page = client.get("/").content.decode()
    assert "ada" in page
    assert "submitter" in page
    assert '<option value="team-a"' in page
    assert '<option value="team-c"' in page
    assert "team-b" not in page
    assert 'href="/" aria-current="page"' in page  # Overview is the current page


def test_an_operator_switches_between_every_namespace(
    console_login: Callable[..., Any],
) -> None:
    from core.models import Namespace

    Namespace.objects.create(name="team-b")
    page = console_login("olga", "operator").get("/").content.decode()
    assert "All namespaces" in page
    assert '<option value="team-b"' in page
    assert '<option value="default"' in page


def test_the_overview_counts_only_jobs_the_user_may_read(
    console_login: Callable[..., Any],
) -> None:
    for name in ("a1", "a2"):
        Job.objects.create(namespace="team-a", name=name, phase="Running")
    Job.objects.create(namespace="team-b", name="b1", phase="Running")
    client = console_login("ada", "viewer", ("team-a",))
    response = client.get("/", headers={"HX-Request": "true", "HX-Target": "overview-jobs"})
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<section id="overview-jobs"')  # only the fragment
    assert "<html" not in body
    assert '<span class="num">2</span>' in body  # team-a's two running jobs, not team-b's


def test_a_namespace_in_the_url_narrows_the_page_and_is_remembered(
    console_login: Callable[..., Any],
) -> None:
    Job.objects.create(namespace="team-a", name="a1", phase="Running")
    Job.objects.create(namespace="team-c", name="c1", phase="Pending")
    client = console_login("ada", "viewer", ("team-a", "team-c"))
    client.get("/?namespace=team-c")
    fragment = client.get("/", headers={"HX-Request": "true", "HX-Target": "overview-jobs"})
    body = fragment.content.decode()
    assert "badge-pending" in body
    assert "badge-running" not in body  # team-a's job is not shown while team-c is chosen


def test_a_namespace_without_a_grant_in_the_url_shows_nothing_more(
    console_login: Callable[..., Any],
) -> None:
    Job.objects.create(namespace="team-b", name="secret", phase="Failed")
    client = console_login("ada", "viewer", ("team-a",))
    fragment = client.get(
        "/?namespace=team-b", headers={"HX-Request": "true", "HX-Target": "overview-jobs"}
    )
    assert "badge-failed" not in fragment.content.decode()


def test_pages_not_built_yet_are_greyed_out_in_the_nav(console_login: Callable[..., Any]) -> None:
    page = console_login("olga", "operator").get("/").content.decode()
    assert 'class="soon"' in page or 'href="/jobs/"' in page


def test_plotly_is_served_from_the_installed_package() -> None:
    found = finders.find("plotly/plotly.min.js")
    assert found is not None
    assert str(found).endswith("plotly.min.js")


def test_the_ace_editor_is_served_from_the_installed_package_and_only_what_it_needs() -> None:
    for name in ("ace.js", "mode-yaml.js", "theme-chrome.js", "theme-tomorrow_night.js"):
        found = finders.find(f"ace/{name}")
        assert found is not None
        assert "site-packages/django_ace/" in str(found)
    assert finders.find("ace/mode-python.js") is None  # the package's other 290 files stay out
    assert finders.find("ace/../widget.js") is None


def test_the_overview_explains_waiting_jobs_and_shows_capacity(
    console_login: Callable[..., Any],
) -> None:
    from jobs.services import job_submit
    from scheduler.worker import run_once
    from tests.scheduler.factories import make_node

    make_node("n1", cpu=2)
    job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": "huge", "namespace": "default"},
        "spec": {"minAvailable": 4, "tasks": [{"name": "w", "replicas": 4, "template": {"spec": {
            "containers": [{"name": "m", "image": "busybox", "resources": {"requests": {"cpu": "2"}}}]}}}]},
    })  # fmt: skip
    run_once()
    run_once()
    client = console_login("olga", "operator")
    waiting = _fragment(client, "overview-waiting")
    assert "huge" in waiting
    assert "more than the whole cluster has" in waiting
    from queues.models import Queue

    Queue.objects.filter(name="default").update(allocated={"cpu": 1000})
    queues = _fragment(client, "overview-queues")
    assert '50.0% <span class="muted">cpu</span>' in queues  # 1 of 2 cores: the dominant share
    capacity = _fragment(client, "overview-capacity")
    assert "cpu" in capacity
    assert "/ 2 cores ·" in capacity  # two cores allocatable, with their unit
    sessions = _fragment(client, "overview-sessions")
    script = sessions.split('<script id="latency-figure" type="application/json">')[1]
    figure = json.loads(script.split("</script>")[0])
    assert figure["data"][0]["type"] == "scatter"  # a figure Plotly can draw, not a string
    assert figure["layout"]["uirevision"] == "keep"  # the user's zoom survives refreshes


def test_the_overview_costs_the_same_queries_for_few_or_many_jobs(
    console_login: Callable[..., Any],
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = console_login("olga", "operator")
    Job.objects.create(namespace="a", name="j0", phase="Pending")
    with CaptureQueriesContext(connection) as few:
        client.get("/")
    for i in range(1, 40):
        Job.objects.create(namespace=f"ns-{i % 7}", name=f"j{i}", phase="Pending")
    with CaptureQueriesContext(connection) as many:
        client.get("/")
    assert len(many) == len(few)


def _fragment(client: Client, target: str) -> str:
    response = client.get("/", headers={"HX-Request": "true", "HX-Target": target})
    assert response.status_code == 200
    return str(response.content.decode())


def test_the_overview_and_the_jobs_list_count_the_same_waiting_jobs(
    console_login: Callable[..., Any],
) -> None:
    # New, Pending and Restarting jobs wait (Restarting goes back to Pending by itself);
    # the others hold their gang or ended.
    for phase in ("", "Pending", "Restarting", "Running", "Aborted", "Completed"):
        Job.objects.create(namespace="default", name=f"job-{phase.lower() or 'new'}", phase=phase)
    client = console_login("olga", "operator")
    waiting = _fragment(client, "overview-waiting")
    assert "3 waiting, oldest first" in waiting
    jobs_list = client.get("/jobs/").content.decode()
    listed = [name for name in ("new", "pending", "restarting") if f">job-{name}</a>" in waiting]
    assert len(listed) == 3
    assert jobs_list.count('class="sub why"') == 3  # each waiting job says why it waits
