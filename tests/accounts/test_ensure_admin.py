"""``manage.py ensure_admin``: the account ``make run`` creates, exactly once."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def run() -> str:
    out = StringIO()
    call_command("ensure_admin", stdout=out)
    return out.getvalue()


def test_password_from_environment_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMIN_PASSWORD", "from-the-env-42")
    output = run()
    assert "from-the-env-42" not in output
    assert authenticate(username="admin", password="from-the-env-42") is not None


def test_generated_password_is_printed_once_and_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ADMIN_PASSWORD", raising=False)
    output = run()
    password = output.split("password: ")[1].split()[0]
    user = get_user_model().objects.get(username="admin")
    assert user.is_superuser
    assert user.check_password(password)
    again = run()
    assert "already exists" in again
    assert password not in again
    user.refresh_from_db()
    assert user.check_password(password)
