"""The policy editor offers the extender plugin and round-trips its list argument."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.urls import reverse

from scheduler.engine.conf import load_conf

pytestmark = pytest.mark.django_db

SYNC = reverse("scheduler:policy_sync")

TEXT = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: gang
- plugins:
  - name: extender
    arguments:
      extender.urlPrefix: http://127.0.0.1:8888
      extender.managedResources:
      - nvidia.com/gpu
      - amd.com/gpu
"""


def test_the_form_shows_the_managed_resources_comma_separated(console_login: Any) -> None:
    client = console_login("op", "operator")

    answer = client.post(SYNC, {"text": TEXT, "source": "yaml"}).json()

    assert answer["errors"] == {}
    assert 'name="tiers[1].plugins[0].arguments.extender.managedResources"' in answer["form"]
    assert 'value="nvidia.com/gpu, amd.com/gpu"' in answer["form"]
    assert 'name="tiers[1].plugins[0].arguments.extender.predicateVerb"' in answer["form"]


def test_the_managed_resources_typed_in_the_form_become_volcanos_yaml_list(
    console_login: Any,
) -> None:
    client = console_login("op", "operator")
    path = "tiers[1].plugins[0]"
    data = {
        "source": "form",
        "actions": ["enqueue", "allocate"],
        "tier_count": 2,
        "extra": "",
        "tiers[0].count": 1,
        "tiers[0].plugins[0].name": "gang",
        "tiers[1].count": 1,
        f"{path}.name": "extender",
        f"{path}.argument-keys": ["extender.urlPrefix", "extender.managedResources"],
        f"{path}.arguments.extender.urlPrefix": "http://127.0.0.1:8888",
        f"{path}.arguments.extender.managedResources": "nvidia.com/gpu, amd.com/gpu",
    }

    answer = client.post(SYNC, data).json()

    assert answer["errors"] == {}
    entry = yaml.safe_load(answer["text"])["tiers"][1]["plugins"][0]
    assert entry["arguments"]["extender.managedResources"] == ["nvidia.com/gpu", "amd.com/gpu"]
    parsed = load_conf(answer["text"]).tiers[1].plugins[0].arguments
    assert parsed.get_str("extender.managedResources") == "nvidia.com/gpu,amd.com/gpu"
