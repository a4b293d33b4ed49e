"""The scheduler policy pages: editor (form ⇄ YAML), versions, diff, activation, what-if."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import yaml
from django.urls import reverse

from accounts.models import AuditEntry
from apis.errors import ConfError
from scheduler.engine import load_conf
from scheduler.models import SchedulerConfiguration, SessionRecord
from scheduler.worker import run_once
from tests.scheduler.factories import make_gang, make_node
from tests.scheduler.policy_kit import form_fields

pytestmark = pytest.mark.django_db

EDITOR = reverse("scheduler:policy")
SYNC = reverse("scheduler:policy_sync")
VERSIONS = reverse("scheduler:policy_versions")
WHATIF = reverse("scheduler:policy_whatif")

BASE = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: nodeorder
"""


def active() -> SchedulerConfiguration:
    return SchedulerConfiguration.objects.get(is_active=True)


# --- permissions ---------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["viewer", "submitter", "operator", "admin"])
def test_every_role_reads_the_editor_and_versions(console_login: Any, role: str) -> None:
    client = console_login("u", role)

    page = client.get(EDITOR)
    versions = client.get(VERSIONS)

    assert page.status_code == 200
    assert versions.status_code == 200
    assert b"policy-text" in page.content
    writable = role in ("operator", "admin")
    assert (b"Save as new version" in page.content) is writable
    assert (b"Read-only" in page.content) is not writable


def test_an_anonymous_visitor_is_sent_to_sign_in(client: Any) -> None:
    assert client.get(EDITOR).status_code == 302


@pytest.mark.parametrize("role", ["viewer", "submitter"])
def test_a_submitter_or_viewer_cannot_save_activate_or_run_a_what_if(
    console_login: Any, role: str
) -> None:
    client = console_login("u", role)
    before = list(SchedulerConfiguration.objects.values_list("version", "is_active", "text"))
    audits = AuditEntry.objects.count()
    first = active()

    saved = client.post(EDITOR, {"text": BASE, "save": "1"})
    activated = client.post(reverse("scheduler:policy_activate", args=[first.version]))
    whatif = client.post(WHATIF, {"text": BASE})

    assert (saved.status_code, activated.status_code, whatif.status_code) == (403, 403, 403)
    after = list(SchedulerConfiguration.objects.values_list("version", "is_active", "text"))
    assert after == before
    assert AuditEntry.objects.count() == audits


# --- the editor ----------------------------------------------------------------------------


def test_a_configuration_built_in_the_form_equals_its_yaml_and_parses(console_login: Any) -> None:
    client = console_login("op", "operator")
    data = form_fields(BASE)
    data["tiers[1].plugins[1].argument-keys"] = ["leastrequested.weight", "mostrequested.weight"]
    data["tiers[1].plugins[1].arguments.mostrequested.weight"] = "2"
    data["tiers[0].plugins[1].flags-shown"] = ["enableJobReady", "enablePreemptable"]
    data["tiers[0].plugins[1].enableJobReady"] = "true"  # enablePreemptable left unchecked

    answer = client.post(SYNC, {**data, "source": "form"}).json()

    assert answer["errors"] == {}
    conf = load_conf(answer["text"])
    gang = conf.tiers[0].plugins[1]
    assert gang.enabled("enablePreemptable") is False
    assert gang.enabled("enableJobReady") is True
    assert conf.tiers[1].plugins[1].arguments.get("mostrequested.weight") == 2
    assert yaml.safe_load(answer["text"])["tiers"][1]["plugins"][1] == {
        "name": "nodeorder",
        "arguments": {"mostrequested.weight": 2},
    }


def test_the_form_is_rebuilt_from_the_yaml(console_login: Any) -> None:
    client = console_login("op", "operator")
    text = BASE + "  - name: binpack\n    arguments:\n      binpack.weight: 5\n"

    answer = client.post(SYNC, {"text": text, "source": "yaml"}).json()

    assert answer["errors"] == {}
    assert 'name="tiers[1].plugins[2].name" value="binpack"' in answer["form"]
    assert 'name="tiers[1].plugins[2].arguments.binpack.weight"' in answer["form"]
    assert 'value="5"' in answer["form"]


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        ({"tiers[1].plugins[1].arguments.tainttoleration.weight": "heavy"},
         "tiers[1].plugins[1].arguments.tainttoleration.weight"),
        ({"tiers[0].plugins[0].name": "nosuch"}, "tiers[0].plugins[0].name"),
    ],
)  # fmt: skip
def test_a_bad_argument_or_unknown_plugin_is_refused_at_its_field(
    console_login: Any, edit: dict[str, str], field: str
) -> None:
    client = console_login("op", "operator")
    data = {**form_fields(BASE), **edit}
    data["tiers[1].plugins[1].argument-keys"] = ["tainttoleration.weight"]

    answer = client.post(SYNC, {**data, "source": "form"}).json()
    saved = client.post(EDITOR, {"text": answer["text"], "save": "1"})

    assert list(answer["errors"]) == [field]
    assert saved.status_code == 422
    assert field.encode() in saved.content
    assert SchedulerConfiguration.objects.count() == 1  # the migration's version only


def test_structural_buttons_reorder_actions_tiers_and_plugins(console_login: Any) -> None:
    client = console_login("op", "operator")
    data = form_fields(BASE)

    def press(op: str, **extra: str) -> dict[str, Any]:
        answer = client.post(SYNC, {**data, **extra, "source": "form", "op": op}).json()
        conf = yaml.safe_load(answer["text"])
        return {"actions": conf["actions"],
                "tiers": [[p["name"] for p in t["plugins"]] for t in conf["tiers"]]}  # fmt: skip

    assert press("action-add", action_add="preempt")["actions"] == (
        "enqueue, allocate, backfill, preempt"
    )
    assert press("action-up:1")["actions"] == "allocate, enqueue, backfill"
    assert press("tier-down:0")["tiers"] == [["predicates", "nodeorder"], ["priority", "gang"]]
    assert press("plugin-add:0", **{"tiers[0].add": "drf"})["tiers"][0] == [
        "priority", "gang", "drf"
    ]  # fmt: skip
    assert press("plugin-down:0:1")["tiers"] == [["priority"], ["gang", "predicates", "nodeorder"]]
    assert press("tier-remove:1")["tiers"] == [["priority", "gang"]]


def test_saving_creates_a_version_with_author_and_comment(console_login: Any) -> None:
    client = console_login("op", "operator")
    first = active()

    response = client.post(EDITOR, {"text": BASE, "comment": "fewer plugins", "save": "1"})

    assert response.status_code == 302
    saved = SchedulerConfiguration.objects.get(version=first.version + 1)
    assert (saved.text, saved.comment, saved.author) == (BASE, "fewer plugins", client.user)
    assert not saved.is_active
    assert active() == first
    entry = AuditEntry.objects.filter(kind="SchedulerConfiguration").latest("pk")
    assert entry.name == f"v{saved.version}"
    page = client.get(VERSIONS)
    assert b"fewer plugins" in page.content
    assert b"op" in page.content


def test_activating_changes_what_the_next_session_runs_and_rollback_restores_the_text(
    console_login: Any,
) -> None:
    client = console_login("op", "operator")
    first = active()
    original = first.text
    client.post(EDITOR, {"text": BASE, "comment": "new", "save": "1"})
    new = SchedulerConfiguration.objects.get(version=first.version + 1)
    make_node("n1")
    now = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)

    client.post(reverse("scheduler:policy_activate", args=[new.version]))
    run_once(now=now, reconcile=False)
    client.post(reverse("scheduler:policy_activate", args=[first.version]))
    run_once(now=now + dt.timedelta(seconds=1), reconcile=False)

    ran = list(
        SessionRecord.objects.order_by("started_at").values_list(
            "configuration__version", flat=True
        )
    )
    assert ran == [new.version, first.version]
    assert active().version == first.version
    assert active().text == original
    page = client.get(VERSIONS)
    assert f"v{new.version}".encode() in page.content
    entries = AuditEntry.objects.filter(kind="SchedulerConfiguration", action="activate")
    assert entries.count() == 2


def test_the_diff_shows_two_versions_side_by_side(console_login: Any) -> None:
    client = console_login("op", "operator")
    first = active()
    client.post(EDITOR, {"text": BASE, "save": "1"})

    page = client.get(VERSIONS, {"a": first.version, "b": first.version + 1})

    assert page.status_code == 200
    assert b'class="diff"' in page.content
    assert f"v{first.version} → v{first.version + 1}".encode() in page.content


def test_the_versions_fragment_is_served_alone_for_a_live_refresh(console_login: Any) -> None:
    client = console_login("v", "viewer")

    page = client.get(VERSIONS, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="sessions")

    assert page.content.lstrip().startswith(b'<section id="sessions"')


# --- what-if -------------------------------------------------------------------------------


def test_a_what_if_runs_and_shows_both_sides_and_a_replayable_scenario(
    console_login: Any, settings: Any
) -> None:
    settings.VOLCANO_WHATIF_INLINE = True
    client = console_login("op", "operator")
    make_node("n1", cpu=2)
    make_gang("g", replicas=3, phase="Inqueue")

    started = client.post(WHATIF, {"text": BASE})
    page = client.get(started["Location"])
    scenario = client.get(started["Location"] + "scenario.yaml?side=draft")

    assert started.status_code == 302
    assert page.status_code == 200
    assert b"Next session, side by side" in page.content
    assert b"default/g" in page.content  # left pending on both sides, with its reason
    assert b"Gang not satisfied" in page.content
    assert scenario.status_code == 200
    document = yaml.safe_load(scenario.content)
    assert document["config"] == BASE
    assert {o["kind"] for o in document["objects"]} >= {"Node", "Pod", "PodGroup", "Queue"}


def test_a_what_if_of_a_refused_draft_is_a_400_naming_the_field(console_login: Any) -> None:
    client = console_login("op", "operator")

    response = client.post(WHATIF, {"text": "actions: fly\n"})

    assert response.status_code == 400
    assert b"actions" in response.content


def test_another_users_what_if_is_not_found(console_login: Any, settings: Any) -> None:
    settings.VOLCANO_WHATIF_INLINE = True
    mine = console_login("op", "operator")
    other = console_login("op2", "operator")

    started = mine.post(WHATIF, {"text": BASE})

    assert other.get(started["Location"]).status_code == 404


def test_operators_see_the_audit_of_configuration_changes_and_viewers_do_not(
    console_login: Any,
) -> None:
    operator = console_login("op", "operator")
    viewer = console_login("v", "viewer")
    first = active()
    operator.post(EDITOR, {"text": BASE, "save": "1"})
    operator.post(reverse("scheduler:policy_activate", args=[first.version + 1]))

    seen = operator.get(VERSIONS).content.decode()
    hidden = viewer.get(VERSIONS).content.decode()

    assert 'id="audit"' in seen
    assert f"v{first.version} → v{first.version + 1}" in seen
    assert f"?a={first.version}&amp;b={first.version + 1}#diff" in seen
    assert 'id="audit"' not in hidden


def test_saving_and_activating_announce_the_change_to_live_pages(
    console_login: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    from console import live

    sent: list[list[str]] = []
    monkeypatch.setattr(live, "publish", lambda topics: sent.append(sorted(topics)))
    client = console_login("op", "operator")
    first = active()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(EDITOR, {"text": BASE, "save": "1"})
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("scheduler:policy_activate", args=[first.version]))

    assert sum(1 for topics in sent if "scheduler.configuration" in topics) == 2
    page = client.get(VERSIONS).content.decode()
    assert 'id="versions" class="card" data-live="scheduler.configuration"' in page
    assert 'data-live="scheduler.session scheduler.configuration"' in page  # the sessions


def test_a_running_what_if_shows_its_progress_and_keeps_polling(console_login: Any) -> None:
    from scheduler import whatif_runs

    client = console_login("op", "operator")
    run = whatif_runs.WhatIfRun(id="r1", user_id=client.user.pk, draft_text=BASE, queue_changes={})
    run.progress, run.step = 0.6, "running the draft"
    whatif_runs._runs[run.id] = run

    page = client.get(reverse("scheduler:policy_whatif_result", args=["r1"])).content.decode()

    assert 'aria-valuenow="60"' in page
    assert "running the draft" in page
    assert 'hx-trigger="every 500ms"' in page


def test_a_queue_what_if_lists_its_changes_on_the_result(console_login: Any, settings: Any) -> None:
    from scheduler.whatif_runs import start_run

    settings.VOLCANO_WHATIF_INLINE = True
    client = console_login("op", "operator")
    run = start_run(user=client.user, draft_text=None, queue_changes={"default": {"weight": 4}})

    page = client.get(reverse("scheduler:policy_whatif_result", args=[run.id])).content.decode()

    assert "Draft side with these queue changes" in page
    assert "weight = 4" in page
    assert "Save the draft and activate it" not in page  # the configuration did not change


def test_save_with_activate_makes_the_new_version_active(console_login: Any) -> None:
    client = console_login("op", "operator")

    client.post(EDITOR, {"text": BASE, "save": "1", "activate": "1", "comment": "at once"})

    assert active().text == BASE
    assert active().comment == "at once"


@pytest.mark.parametrize("tampered", [{"tier_count": "many"}, {"extra": "a: [unclosed"}])
def test_a_tampered_form_is_a_400_not_a_500(console_login: Any, tampered: dict[str, str]) -> None:
    client = console_login("op", "operator")

    response = client.post(SYNC, {**form_fields(BASE), **tampered, "source": "form"})

    assert response.status_code == 400
    assert response.json()["errors"]


def test_yaml_that_is_not_a_mapping_is_refused_by_the_parser(console_login: Any) -> None:
    client = console_login("op", "operator")

    answer = client.post(SYNC, {"text": "- just\n- a list\n", "source": "yaml"}).json()

    assert answer["errors"] == {
        "": 'expected a mapping with actions and tiers, got ["just", "a list"]'
    }


def test_every_mistake_in_the_yaml_is_answered_at_its_line(console_login: Any) -> None:
    client = console_login("op", "operator")
    text = BASE.replace("enqueue,", "enqueue, nope,").replace("name: gang", "name: gangg")
    text = text.replace("name: nodeorder", "name: nodeorder\n    enableNodeOrder: maybe")

    answer = client.post(SYNC, {"text": text, "source": "yaml"}).json()
    page = client.get(EDITOR, {"from": "1"})  # the stored text: valid, nothing marked

    assert answer["problems"] == [
        {"field": "actions", "line": 1, "message": "unknown action 'nope'"},
        {"field": "tiers[0].plugins[1].name", "line": 5, "message": "unknown plugin 'gangg'"},
        {
            "field": "tiers[1].plugins[1].enableNodeOrder",
            "line": 9,
            "message": 'expected true or false, got "maybe"',
        },
    ]
    assert b'class="line"' not in page.content
    with pytest.raises(ConfError, match="unknown action 'nope'"):  # the engine: the first one
        load_conf(text)
