"""SQLite's write-ahead log is copied into the database after a session, not in its commit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection
from django.db.backends.sqlite3.base import DatabaseWrapper

from scheduler.cache.wal import checkpoint_after

pytestmark = [
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's write-ahead log"),
    pytest.mark.django_db,  # lets the file database below be opened
]


@pytest.fixture
def file_database(tmp_path: Path) -> Iterator[DatabaseWrapper]:
    """A connection to a file database set up as the embedded default's (WAL, as settings)."""
    path = tmp_path / "wal.sqlite3"
    settings = {**connection.settings_dict, "NAME": str(path), "TEST": {}}
    settings["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
    }
    wrapper = DatabaseWrapper(settings, alias="wal-test")
    with wrapper.cursor() as cursor:
        cursor.execute("CREATE TABLE big (id INTEGER PRIMARY KEY, body BLOB)")
    yield wrapper
    wrapper.close()


def write_pages(wrapper: DatabaseWrapper, pages: int) -> None:
    """Commit about ``pages`` pages of rows (more than the automatic checkpoint's 1,000)."""
    with wrapper.cursor() as cursor:
        cursor.execute("BEGIN IMMEDIATE")
        cursor.execute(
            "INSERT INTO big (body) SELECT randomblob(3000) FROM json_each(%s)",
            [str(list(range(pages)))],
        )
        cursor.execute("COMMIT")


def test_the_sessions_commit_leaves_the_log_and_the_checkpoint_copies_it_after(
    file_database: DatabaseWrapper,
) -> None:
    path = Path(file_database.settings_dict["NAME"])
    before = path.stat().st_size

    with checkpoint_after(file_database):
        write_pages(file_database, 1500)
        # The commit returned without copying the log back: the database file has not grown.
        assert path.stat().st_size == before
        assert Path(f"{path}-wal").stat().st_size > 1500 * 3000

    assert path.stat().st_size > 1500 * 3000  # copied once the block ended
    with file_database.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint")
        assert cursor.fetchone()[0] == 1000  # other writes on the connection checkpoint again


def test_without_it_a_large_commit_copies_the_log_itself(file_database: DatabaseWrapper) -> None:
    path = Path(file_database.settings_dict["NAME"])

    write_pages(file_database, 1500)

    assert path.stat().st_size > 1500 * 3000  # what the session's commit used to pay for
