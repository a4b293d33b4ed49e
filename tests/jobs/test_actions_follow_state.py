"""The console offers only the actions that change an object in its state: a finished job
only Delete, an aborted one Resume, a node Cordon or Uncordon (never both), Take down or
Bring up; an action sent anyway is refused with a message and writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from jobs.models import Command, Job
from tests.jobs.controller_kit import submit
from tests.scheduler.factories import make_node

pytestmark = pytest.mark.django_db

Login = Callable[..., Client]


def _buttons(html: str) -> list[str]:
    return [value for value in ("abort", "resume", "restart", "delete", "cordon", "uncordon",
                                "down", "up") if f'name="action" value="{value}"' in html]  # fmt: skip


@pytest.mark.parametrize(
    ("phase", "offered"),
    [
        ("Pending", ["abort", "restart", "delete"]),
        ("Running", ["abort", "restart", "delete"]),
        ("Aborted", ["resume", "delete"]),
        ("Completed", ["delete"]),
        ("Failed", ["delete"]),
    ],
)
def test_a_job_page_offers_what_its_phase_allows(
    console_login: Login, phase: str, offered: list[str]
) -> None:
    job = submit("shown")
    Job.objects.filter(pk=job.pk).update(phase=phase)
    client = console_login("sam", "submitter", ("default",))

    html = client.get("/jobs/default/shown/").content.decode()

    assert _buttons(html) == offered


def test_an_action_the_phase_does_not_allow_is_refused(console_login: Login) -> None:
    job = submit("done")
    Job.objects.filter(pk=job.pk).update(phase="Completed")
    client = console_login("sam", "submitter", ("default",))

    response = client.post("/jobs/default/done/action/", {"action": "abort"}, follow=True)

    assert "Abort does nothing to a job that is Completed." in response.content.decode()
    assert not Command.objects.exists()


@pytest.mark.parametrize(
    ("state", "offered"),
    [
        ({}, ["cordon", "down"]),
        ({"unschedulable": True}, ["uncordon", "down"]),
        ({"ready": False}, ["cordon", "up"]),
    ],
)
def test_a_node_page_offers_one_of_each_pair(
    console_login: Login, state: dict[str, Any], offered: list[str]
) -> None:
    node = make_node("n1")
    type(node).objects.filter(pk=node.pk).update(**state)
    client = console_login("opal", "operator")

    html = client.get("/nodes/n1/").content.decode()

    assert _buttons(html) == offered
