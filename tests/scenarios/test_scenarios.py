"""Every scenario file under tests/scenarios runs through ``simulate --check``: one case per file.

A file whose conf names a plugin or action not registered yet is skipped, naming it, so
scenarios written for the plugins of another change run as soon as those plugins exist.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from scheduler.engine.framework import registry
from scheduler.engine.simulate import execute

HERE = Path(__file__).resolve().parent
FILES = sorted(HERE.rglob("*.yaml"))


def _missing_plugins(path: Path) -> list[str]:
    """Return the plugins and actions the file's conf names that nobody has registered yet."""
    registry.ensure_loaded()
    data = yaml.safe_load(path.read_text())
    conf = yaml.safe_load(data.get("config") or "") or {}
    names = {p.get("name") for tier in conf.get("tiers") or [] for p in tier.get("plugins") or []}
    actions = {a.strip() for a in str(conf.get("actions") or "").split(",") if a.strip()}
    missing = sorted(str(n) for n in names - set(registry.plugin_names()))
    return missing + sorted(f"action {a}" for a in actions - set(registry.action_names()))


def test_scenario_folder_is_not_empty():
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(HERE)))
def test_scenario(path: Path) -> None:
    missing = _missing_plugins(path)
    if missing:
        pytest.skip(f"not registered yet: {', '.join(missing)}")
    out, err = io.StringIO(), io.StringIO()
    code = execute([str(path)], fmt="json", check=True, stdout=out, stderr=err)
    assert code == 0, err.getvalue() + out.getvalue()
