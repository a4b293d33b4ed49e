"""The engine imports no Django, no DRF, no Channels, no Celery and no app (checked in a fresh process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import importlib, pkgutil, sys
import scheduler.engine as engine
import scheduler.engine.simulate
for pkg in ("scheduler.engine.plugins", "scheduler.engine.actions", "scheduler.engine.util",
            "scheduler.engine.framework", "scheduler.engine.api"):
    module = importlib.import_module(pkg)
    for info in pkgutil.iter_modules(module.__path__):
        importlib.import_module(f"{pkg}.{info.name}")
bad = sorted(m for m in sys.modules
             if m.split(".")[0] in {"django", "rest_framework", "channels", "celery", "queues", "jobs",
                                     "volcano_site", "prometheus_client", "plotly"}
             or (m.startswith("scheduler.") and not m.startswith("scheduler.engine")))
print("\\n".join(bad))
"""


def test_engine_and_every_plugin_and_action_import_without_django():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
