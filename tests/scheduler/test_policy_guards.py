"""The policy editor offers issue 29's plugins and actions, and shows the actions' arguments."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

SYNC = reverse("scheduler:policy_sync")
TEXT = """\
actions: "enqueue, allocate, gangpreempt, shuffle"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: pdb
  - name: cdp
  - name: resourcequota
- plugins:
  - name: tdm
    arguments:
      tdm.evict.period: 5m
configurations:
- name: gangpreempt
  arguments:
    maxDomains: 3
"""


def test_the_form_shows_the_guard_plugins_and_gangpreempts_arguments(console_login: Any) -> None:
    client = console_login("op", "operator")

    answer = client.post(SYNC, {"text": TEXT, "source": "yaml"}).json()

    assert answer["errors"] == {}
    form = html.unescape(answer["form"])
    for name in ("pdb", "cdp", "resourcequota", "tdm"):
        assert f'name="tiers[{1 if name == "tdm" else 0}].plugins' in form
        assert f"<strong>{name}</strong>" in form
    assert 'value="5m"' in form  # tdm.evict.period
    # gangpreempt's arguments, with the value configurations gives and Volcano's defaults.
    args = form.split("<strong>gangpreempt</strong>")[1].split("</details>")[0]
    assert "2 arguments" in args
    assert "<code>maxDomains</code>" in args
    assert "<code>3</code>" in args
    assert "<code>allowWholeBundle</code>" in args
    assert "<code>true</code>" in args  # its default (as YAML writes it), the value left unset
    # The new actions not in the conf can be added; every new plugin can be chosen.
    assert '<option value="gangreclaim"' in form
    assert "<strong>shuffle</strong>" in form
    for plugin in ("pdb", "cdp", "resourcequota", "tdm", "usage", "extender"):
        assert f'<option value="{plugin}">{plugin}</option>' in form
