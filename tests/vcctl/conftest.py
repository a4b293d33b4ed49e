"""Live-server fixtures: users in each role with an API token, and a ``vcctl(...)`` runner.

The CLI is exercised exactly as a user runs it: ``manage.py vcctl ...`` (through
``call_command``) talking HTTP to pytest-django's live server with a bearer token.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command

from tests.vcctl.runner_kit import Result, Runner, make_token


@pytest.fixture
def default_queue(transactional_db: None) -> None:
    """Keep the ``default`` queue a migration made (a transactional flush may have removed it),
    and the namespaces these tests submit to (objects are created in namespaces that exist)."""
    from core.namespaces import ensure_namespaces
    from queues.models import Queue

    Queue.objects.get_or_create(name="default")
    ensure_namespaces(["default", "team", "other", "lab"])


@pytest.fixture
def operator_token(default_queue: None, django_user_model: Any) -> str:
    """Return an operator's token (every namespace, queues too)."""
    return make_token(django_user_model, "operator")


@pytest.fixture
def vcctl(live_server: Any, operator_token: str) -> Runner:
    """Return ``vcctl(*argv, token=...)``: run ``manage.py vcctl`` against the live server."""

    def run(*argv: str, token: str | None = operator_token) -> Result:
        out, err = io.StringIO(), io.StringIO()
        flags = ["--server", live_server.url]
        if token is not None:
            flags += ["--token", token]
        try:
            call_command("vcctl", *argv, *flags, stdout=out, stderr=err)
            code = 0
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        return Result(code, out.getvalue(), err.getvalue())

    return run
