"""The policy editor and rescheduling's nested ``strategies`` argument (a list of mappings)."""

from __future__ import annotations

import html
from typing import Any

import pytest
import yaml

from scheduler.conf_findings import ignored_arguments
from scheduler.engine import load_conf
from scheduler.engine.catalogue import plugin_info
from tests.scheduler.policy_kit import BASE, SYNC, form_fields

pytestmark = pytest.mark.django_db

RESCHEDULING = BASE + (
    "  - name: rescheduling\n"
    "    arguments:\n"
    "      interval: 10m\n"
    "      strategies:\n"
    "      - name: lowNodeUtilization\n"
    "        params:\n"
    "          thresholds: {cpu: 20, memory: 20}\n"
    "          targetThresholds: {cpu: 50, memory: 50}\n"
)
FIELD = "tiers[1].plugins[2].arguments.strategies"


def test_the_catalogue_offers_strategies_as_yaml() -> None:
    info = plugin_info("rescheduling")

    assert info is not None
    assert info.flags == ("enabledVictim",)
    kinds = {a.key: a.type for a in info.arguments}
    assert kinds == {"interval": "str", "metricsPeriod": "str", "strategies": "yaml"}


def test_strategies_are_one_yaml_field_read_back_nested(console_login: Any) -> None:
    client = console_login("op", "operator")

    answer = client.post(SYNC, {"text": RESCHEDULING, "source": "yaml"}).json()

    assert answer["errors"] == {}
    form = html.unescape(answer["form"])
    assert f'name="{FIELD}"' in form
    assert "[{name: lowNodeUtilization, params: {thresholds: {cpu: 20" in form
    data = form_fields(RESCHEDULING)
    data[FIELD] = "[{name: lowNodeUtilization, params: {targetThresholds: {cpu: 60}}}]"
    answer = client.post(SYNC, {**data, "source": "form"}).json()

    assert answer["errors"] == {}
    plugin = yaml.safe_load(answer["text"])["tiers"][1]["plugins"][2]
    assert plugin["arguments"]["strategies"] == [
        {"name": "lowNodeUtilization", "params": {"targetThresholds": {"cpu": 60}}}
    ]


def test_an_untouched_form_keeps_the_strategies(console_login: Any) -> None:
    client = console_login("op", "operator")

    answer = client.post(SYNC, {**form_fields(RESCHEDULING), "source": "form"}).json()

    assert answer["errors"] == {}
    plugin = yaml.safe_load(answer["text"])["tiers"][1]["plugins"][2]
    assert (
        plugin["arguments"] == yaml.safe_load(RESCHEDULING)["tiers"][1]["plugins"][2]["arguments"]
    )


def test_a_bad_percent_from_the_form_is_refused_at_its_inner_field(console_login: Any) -> None:
    client = console_login("op", "operator")
    data = form_fields(RESCHEDULING)
    data[FIELD] = "[{name: lowNodeUtilization, params: {thresholds: {cpu: high}}}]"

    answer = client.post(SYNC, {**data, "source": "form"}).json()

    assert list(answer["errors"]) == [f"{FIELD}[0].params.thresholds.cpu"]


def test_the_health_page_names_rescheduling_arguments_when_no_hook_reads_them() -> None:
    text = RESCHEDULING.replace(
        "  - name: rescheduling\n", "  - name: rescheduling\n    enabledVictim: false\n"
    )

    ignored = ignored_arguments(load_conf(text))

    assert [i.key for i in ignored] == ["interval", "strategies"]
    assert not ignored_arguments(load_conf(RESCHEDULING))
