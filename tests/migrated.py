"""A migrated SQLite database for the servers tests start, migrated once per test run.

Every live server (the kubectl one, the browser's console, the kubeconfig shell's) needs a
fresh, migrated database of its own. Migrating costs several seconds of Django start-up and
hundreds of statements each time; the first server of a run migrates a template and every
server copies it, which gives the same file for a fraction of the time.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

__all__ = ["DATABASE_FILE", "copy_migrated_database"]

ROOT = Path(__file__).resolve().parent.parent
DATABASE_FILE = "db.sqlite3"  # the embedded default's file in VOLCANO_DATA_DIR (settings)
_LOCK = threading.Lock()
_template: list[Path] = []


def _migrate(env: Mapping[str, str]) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="volcano-migrated-"))
    atexit.register(shutil.rmtree, folder, True)
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT, env={**env, "VOLCANO_DATA_DIR": str(folder)},
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return folder / DATABASE_FILE


def copy_migrated_database(directory: Path, env: Mapping[str, str]) -> None:
    """Put a migrated database in ``directory`` (a server's VOLCANO_DATA_DIR); ``env`` is the
    server's environment (DATABASE_URL unset: the servers run the embedded SQLite)."""
    assert "DATABASE_URL" not in env, "the template is SQLite; a server on DATABASE_URL migrates"
    with _LOCK:
        if not _template:
            _template.append(_migrate(env))
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_template[0], directory / DATABASE_FILE)
    os.chmod(directory / DATABASE_FILE, 0o600)
