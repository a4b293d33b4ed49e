"""Settings come from the environment; the production profile passes check --deploy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.db.utils import ConnectionHandler

from volcano_site.settings import database_config, env_flag, generated_secret_key

REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def run_manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run manage.py in a clean child process with ``env`` added."""
    child_env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
    child_env.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT,
        env=child_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_production_profile_passes_check_deploy_without_warnings(tmp_path: Path) -> None:
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env={
            "DJANGO_SETTINGS_MODULE": "volcano_site.settings_production",
            "VOLCANO_DATA_DIR": str(tmp_path),
            "ALLOWED_HOSTS": "volcano.example.com",
            "SECRET_KEY": "a-test-key-" + "x" * 50,
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key(tmp_path: Path) -> None:
    result = run_manage(
        "check",
        env={
            "DJANGO_SETTINGS_MODULE": "volcano_site.settings_production",
            "VOLCANO_DATA_DIR": str(tmp_path),
            "ALLOWED_HOSTS": "volcano.example.com",
        },
    )
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr
    assert not (tmp_path / "secret_key").exists()  # no per-host key was generated instead


def test_development_settings_are_not_deployable(tmp_path: Path) -> None:
    # The check has teeth: the plain profile (DEBUG=1, no HTTPS) fails it.
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env={"VOLCANO_DATA_DIR": str(tmp_path), "DEBUG": "1"},
    )
    assert result.returncode != 0
    assert "security.W018" in result.stderr + result.stdout  # DEBUG on in deployment


def test_database_url_unset_means_sqlite_in_the_data_dir_with_wal(tmp_path: Path) -> None:
    config = database_config(None, tmp_path)
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(config["NAME"]) == tmp_path / "db.sqlite3"
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]


def test_database_url_for_postgres_is_parsed() -> None:
    config = database_config("postgres://volcano:s3cret@db.example.com:5433/console", Path("/x"))
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"]) == ("console", "volcano", "s3cret")
    assert (config["HOST"], config["PORT"]) == ("db.example.com", 5433)


def test_default_data_dir_is_outside_the_source_tree(tmp_path: Path) -> None:
    result = run_manage(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.DATABASES['default']['NAME'])",
        env={"HOME": str(tmp_path), "VOLCANO_DATA_DIR": "", "DATABASE_URL": ""},
    )
    assert result.returncode == 0, result.stderr
    db_path = Path(result.stdout.strip().splitlines()[-1])
    assert db_path == tmp_path / ".local/share/volcano-console/db.sqlite3"
    assert REPO_ROOT not in db_path.parents


def test_secret_key_is_generated_once_and_reused(tmp_path: Path) -> None:
    first = generated_secret_key(tmp_path)
    assert len(first) >= 50
    assert generated_secret_key(tmp_path) == first
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(
    ("value", "expected"), [("1", True), ("true", True), ("0", False), ("", False), (None, False)]
)
def test_debug_flag_is_off_unless_asked(
    monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool
) -> None:
    if value is None:
        monkeypatch.delenv("DEBUG", raising=False)
    else:
        monkeypatch.setenv("DEBUG", value)
    assert env_flag("DEBUG") is expected


def test_default_sqlite_file_is_opened_in_wal_mode_with_a_32_mib_page_cache(
    tmp_path: Path, django_db_blocker: Any
) -> None:
    handler = ConnectionHandler({"default": database_config(None, tmp_path)})
    connection = handler["default"]
    try:
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone()[0] == "wal"
            cursor.execute("PRAGMA cache_size")  # negative: KiB
            assert cursor.fetchone()[0] == -32 * 1024
    finally:
        connection.close()
