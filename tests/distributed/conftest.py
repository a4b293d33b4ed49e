"""Real services: a Celery worker (or two) and beat against PostgreSQL and Redis.

Skipped, with the reason, unless ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` are set, as
``.ci/run`` sets them. The workers see the test database (pytest-django's ``test_…`` copy) and
use Redis database 9, flushed first, so nothing else on that Redis is touched. Every process is
started in its own session and always stopped (SIGTERM, then SIGKILL) when the test ends.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.distributed.celery_kit import Stack

pytestmark = pytest.mark.distributed


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    missing = [n for n in ("DATABASE_URL", "REDIS_URL") if not os.environ.get(n)]
    url = os.environ.get("DATABASE_URL", "")
    reason = ""
    if missing:
        reason = f"needs real services: {' and '.join(missing)} unset"
    elif not url.startswith(("postgres://", "postgresql://")):
        reason = "needs DATABASE_URL to name PostgreSQL"
    for item in items:
        if "tests/distributed/" in str(item.fspath):
            item.add_marker(pytest.mark.distributed)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def stack(transactional_db: None) -> Iterator[Stack]:
    """Return the stack helper on the committed (transactional) test database."""
    from django.db import connection

    with tempfile.TemporaryDirectory(prefix="volcano-dist-") as tmp:
        s = Stack(connection.settings_dict["NAME"], Path(tmp))
        s.redis().flushdb()
        try:
            yield s
        finally:
            s.stop_all()
            s.redis().flushdb()
