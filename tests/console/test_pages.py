"""The layout and the Overview as each role sees them; fragments for live refreshes."""

from __future__ import annotations

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


def test_an_operator_switches_between_every_namespace_in_use(
    console_login: Callable[..., Any],
) -> None:
    Job.objects.create(namespace="team-b", name="train")
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
    assert '<td class="num">2</td>' in body


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
    assert "badge-running" not in body


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
