"""Every scenario file under tests/scenarios runs through ``simulate --check``: one case per file.

A file whose conf names a plugin or action not registered yet is skipped, naming it, so
scenarios written for the plugins of another change run as soon as those plugins exist.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from scheduler.engine.simulate import execute

HERE = Path(__file__).resolve().parent
FILES = sorted(HERE.rglob("*.yaml"))


def test_scenario_folder_is_not_empty():
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(HERE)))
def test_scenario(path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = execute([str(path)], fmt="json", check=True, stdout=out, stderr=err)
    assert code == 0, err.getvalue() + out.getvalue()
