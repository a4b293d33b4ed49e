"""The audit page: operators only, every kind of change, filters, diffs of configuration text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import AuditEntry
from jobs.models import Job
from tests.scheduler.factories import make_node, make_queue

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("role", ["viewer", "submitter"])
def test_only_operators_read_the_audit_log(console_login: Callable[..., Client], role: str) -> None:
    client = console_login("sam", role)
    assert client.get("/audit/").status_code == 403
    assert 'href="/audit/"' not in client.get("/").content.decode()  # not in the navigation


def test_operator_changes_are_listed_with_who_and_before_after(
    console_login: Callable[..., Client],
) -> None:
    make_queue("research", weight=1)
    client = console_login("olga", "operator")
    client.post("/queues/research/action/", {"action": "close"})
    page = client.get("/audit/").content.decode()
    assert 'href="/audit/" aria-current="page"' in page
    assert "olga" in page
    assert "<code>state</code> <del>Open</del> → <ins>Closed</ins>" in page
    assert "none" not in page.split("<tbody>")[1].split("</tbody>")[0]


def test_the_filters_narrow_the_log(console_login: Callable[..., Client]) -> None:
    client = console_login("olga", "operator")
    user = client.user  # type: ignore[attr-defined]
    for kind, name in (("Queue", "alpha"), ("Node", "node-1"), ("Queue", "beta")):
        AuditEntry.objects.create(
            actor=user, actor_name="olga", action="update", kind=kind, name=name
        )
    AuditEntry.objects.create(
        actor=user, actor_name="ivan", action="delete", kind="Queue", name="gamma"
    )
    page = client.get("/audit/?kind=Queue&actor=olga").content.decode()
    assert ">alpha</a>" in page
    assert ">beta</a>" in page
    assert "node-1" not in page
    assert "gamma" not in page
    page = client.get("/audit/?name=gam").content.decode()
    assert ">gamma</a>" in page
    assert ">alpha</a>" not in page


def test_a_configuration_change_is_shown_as_a_diff(console_login: Callable[..., Client]) -> None:
    client = console_login("olga", "operator")
    AuditEntry.objects.create(
        actor=client.user, actor_name="olga", action="activate",  # type: ignore[attr-defined]
        kind="SchedulerConfiguration", name="v2",
        before={"version": 1, "text": 'actions: "enqueue, allocate"\ntiers: []\n'},
        after={"version": 2, "text": 'actions: "enqueue, allocate, preempt"\ntiers: []\n'},
    )  # fmt: skip
    page = client.get("/audit/").content.decode()
    assert '<span class="del">-actions: &quot;enqueue, allocate&quot;</span>' in page
    assert '<span class="add">+actions: &quot;enqueue, allocate, preempt&quot;</span>' in page


def test_bulk_job_actions_are_audited(console_login: Callable[..., Client]) -> None:
    make_node("n1")
    for name in ("j1", "j2"):
        Job.objects.create(namespace="default", name=name, phase="Running")
    client = console_login("olga", "operator")
    client.post("/jobs/bulk/", {"action": "abort", "selected": ["default/j1", "default/j2"]})
    entry = AuditEntry.objects.get(kind="Job")
    assert entry.action == "bulk abort"
    assert entry.after == {"jobs": "default/j1, default/j2"}
    assert entry.actor_name == "olga"


def test_the_audit_page_refreshes_live_on_new_entries(console_login: Callable[..., Any]) -> None:
    page = console_login("olga", "operator").get("/audit/").content.decode()
    assert 'id="audit-table" class="card" data-live="console.audit"' in page


def test_quantities_read_as_words_not_python(console_login: Callable[..., Client]) -> None:
    client = console_login("olga", "operator")
    AuditEntry.objects.create(
        actor=client.user, actor_name="olga", action="update", kind="Queue",  # type: ignore[attr-defined]
        name="research", before={"capability": {}}, after={"capability": {"cpu": "12", "memory": "8Gi"}},
    )  # fmt: skip
    page = client.get("/audit/").content.decode()
    assert "<del>none</del> → <ins>cpu 12, memory 8Gi</ins>" in page
    assert "{&#x27;" not in page


def test_each_entry_links_to_its_objects_page_as_its_app_registered_it(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("oscar", "operator", ("default",))
    AuditEntry.objects.create(
        actor_name="ivan", action="delete", kind="Job", name="default/trainer"
    )
    AuditEntry.objects.create(actor_name="ivan", action="update", kind="Node", name="node-7")
    body = client.get("/audit/").content.decode()
    assert 'href="/jobs/default/trainer/"' in body
    assert 'href="/nodes/node-7/"' in body
