"""The policy editor and the usage plugin's nested arguments (``thresholds:``, ``estimator:``)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from scheduler.conf_findings import ignored_arguments
from scheduler.engine import load_conf
from tests.scheduler.policy_kit import BASE, SYNC, form_fields

pytestmark = pytest.mark.django_db

USAGE = BASE + (
    "  - name: usage\n"
    "    arguments:\n"
    "      usage.weight: 5\n"
    "      thresholds:\n"
    "        cpu: 70\n"
    "        mem: 60\n"
)


def test_usage_arguments_are_offered_one_field_per_key(console_login: Any) -> None:
    client = console_login("op", "operator")

    answer = client.post(SYNC, {"text": USAGE, "source": "yaml"}).json()

    assert answer["errors"] == {}
    form = answer["form"]
    assert 'name="tiers[1].plugins[2].arguments.thresholds.cpu"' in form
    assert 'name="tiers[1].plugins[2].arguments.estimator.risk_factor"' in form
    assert "not an argument of this plugin" not in form


def test_a_form_edit_is_written_back_nested_as_volcano_reads_it(console_login: Any) -> None:
    client = console_login("op", "operator")
    data = form_fields(USAGE)
    data["tiers[1].plugins[2].arguments.thresholds.cpu"] = "90"

    answer = client.post(SYNC, {**data, "source": "form"}).json()

    assert answer["errors"] == {}
    usage = yaml.safe_load(answer["text"])["tiers"][1]["plugins"][2]
    assert usage["arguments"] == {"usage.weight": 5, "thresholds": {"cpu": 90, "mem": 60}}
    assert load_conf(answer["text"]).tiers[1].plugins[2].arguments.get("thresholds.cpu") == 90


def test_a_bad_threshold_from_the_form_is_refused_at_its_field(console_login: Any) -> None:
    client = console_login("op", "operator")
    data = form_fields(USAGE)
    data["tiers[1].plugins[2].arguments.thresholds.mem"] = "high"

    answer = client.post(SYNC, {**data, "source": "form"}).json()

    assert list(answer["errors"]) == ["tiers[1].plugins[2].arguments.thresholds.mem"]


def test_the_health_page_names_usage_arguments_no_hook_reads() -> None:
    off = "    enablePredicate: false\n    enableNodeOrder: false\n"
    text = BASE + "  - name: usage\n" + off + "    arguments: {thresholds: {cpu: 90}}\n"

    (ignored,) = ignored_arguments(load_conf(text))

    assert (ignored.owner, ignored.path) == (
        "usage",
        "tiers[1].plugins[2].arguments.thresholds.cpu",
    )
    assert not ignored_arguments(load_conf(USAGE))
