"""Error pages in the console's layout, saying what to do next; a role is not offered what it
may not do (a viewer has no Submit)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client

pytestmark = pytest.mark.django_db


def test_a_viewer_is_not_offered_submit_and_is_refused_it_in_the_layout(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("vera", "viewer", ("default",))
    assert 'href="/submit/"' not in client.get("/").content.decode()
    refused = client.get("/submit/")
    assert refused.status_code == 403
    body = refused.content.decode()
    assert 'id="sidebar"' in body  # the console's layout, with its navigation
    assert "Your role, viewer, does not allow this" in body
    assert "Go to the Overview" in body


def test_a_refused_action_is_a_page_in_the_layout(console_login: Callable[..., Any]) -> None:
    client = console_login("vera", "viewer", ("default",))
    refused = client.post("/jobs/default/nothing/action/", {"action": "abort"})
    assert refused.status_code == 403
    assert "Your role does not allow changing jobs here." in refused.content.decode()


def test_a_user_without_a_role_is_told_how_to_get_one(django_user_model: Any) -> None:
    client = Client()
    client.force_login(django_user_model.objects.create_user("nobody", password="pw-nobody-1"))
    refused = client.get("/")
    assert refused.status_code == 403
    assert "Your account has no role yet" in refused.content.decode()


def test_a_missing_object_says_what_may_have_happened(console_login: Callable[..., Any]) -> None:
    client = console_login("vera", "viewer", ("default",))
    missing = client.get("/jobs/default/gone-job/")
    assert missing.status_code == 404
    body = missing.content.decode()
    assert "Nothing is at /jobs/default/gone-job/." in body
    assert "may have been deleted" in body
    assert 'id="sidebar"' in body


def test_an_expired_form_says_so_and_changes_nothing(django_user_model: Any) -> None:
    user = django_user_model.objects.create_superuser("ada", "ada@example.com", "pw-ada-12345")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    refused = client.post("/cronjobs/default/x/action/", {"action": "run"})
    assert refused.status_code == 403
    assert "The form expired" in refused.content.decode()


def test_the_server_error_page_needs_no_request_and_says_what_to_do() -> None:
    page = render_to_string("500.html")
    assert "Something went wrong on the server" in page
    assert "console.css" in page
