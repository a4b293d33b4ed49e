"""What the policy editor tests share: the sync URL, a base conf and the form's POST fields."""

from __future__ import annotations

from typing import Any

import yaml
from django.urls import reverse

from scheduler.policy_form import draft_from_text

SYNC = reverse("scheduler:policy_sync")

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


def _typed(value: Any) -> str:
    """Return ``value`` as the editor's field shows it (nested values as one line of YAML)."""
    if isinstance(value, dict) or (
        isinstance(value, list) and not all(isinstance(item, str) for item in value)
    ):
        return str(yaml.safe_dump(value, default_flow_style=True, width=10**6)).strip()
    return str(value)


def form_fields(text: str) -> dict[str, Any]:
    """Return the POST fields the editor's form shows for ``text`` (as the browser sends them)."""
    draft = draft_from_text(text)
    assert draft is not None
    data: dict[str, Any] = {"actions": draft.actions, "tier_count": len(draft.tiers), "extra": ""}
    for i, tier in enumerate(draft.tiers):
        data[f"tiers[{i}].count"] = len(tier)
        for j, entry in enumerate(tier):
            path = f"tiers[{i}].plugins[{j}]"
            data[f"{path}.name"] = entry.name
            data[f"{path}.argument-keys"] = list(entry.arguments)
            for key, value in entry.arguments.items():
                data[f"{path}.arguments.{key}"] = _typed(value)
    return data
