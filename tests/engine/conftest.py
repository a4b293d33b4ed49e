"""Engine test fixtures (no database): the configurable ``probe`` plugin."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import registry
from tests.engine.plugins.probe import ProbePlugin


@pytest.fixture
def probe(monkeypatch):
    """Return the probe's answer table; the plugin is registered as ``probe`` for the test."""
    registry.ensure_loaded()
    monkeypatch.setitem(registry._PLUGINS, "probe", ProbePlugin)
    monkeypatch.setattr(ProbePlugin, "answers", {})
    monkeypatch.setattr(ProbePlugin, "opened", [])
    return ProbePlugin.answers
