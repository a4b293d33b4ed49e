"""Browser fixtures: Debian's Chromium driven by Playwright against pytest-django's live server.

Playwright never downloads a browser here: it launches ``/usr/bin/chromium`` (``make test``
installs it with apt-get when it can); without it every browser test skips, naming the
missing binary. Each test gets a fresh browser (no cookies). Test modules mark themselves
``browser``, ``skipif(not CHROMIUM.exists())`` and ``django_db(transaction=True,
serialized_rollback=True)``: the live server reads committed rows, and each test starts
from what the migrations made (roles, the default queue).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connections
from playwright.sync_api import Page, sync_playwright

from tests.browser.kit import CHROMIUM, MISSING, PASSWORD
from tests.browser.server import ConsoleServer, run_console


@pytest.fixture
def page() -> Iterator[Page]:
    """Return a page of a fresh headless Chromium, failing fast instead of hanging.

    Playwright's sync API keeps an event loop running in this thread while it is started,
    so Django refuses ORM calls and hands out connections of their own meanwhile. The
    tests' ORM calls are plain synchronous calls, so the guard is lifted for the test's
    body, and those connections are closed before Playwright stops; the database set-up
    and flush around the test run before and after, on the test's usual connection.
    """
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
            context = browser.new_context()
            context.set_default_timeout(15_000)
            try:
                yield context.new_page()
            finally:
                context.close()
                browser.close()
                connections.close_all()
    finally:
        if previous is None:
            del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def make_user(django_user_model: Any) -> Callable[..., Any]:
    """Return a factory of users holding ``role`` (an admin: a superuser) and namespaces."""

    def make(name: str, role: str, *, staff: bool = False, namespaces: tuple[str, ...] = ()) -> Any:
        from accounts.models import NamespaceGrant

        if role == "admin":
            return django_user_model.objects.create_superuser(name, f"{name}@example.com", PASSWORD)
        user = django_user_model.objects.create_user(name, password=PASSWORD, is_staff=staff)
        user.groups.add(Group.objects.get(name=role))
        for namespace in namespaces:
            NamespaceGrant.objects.create(user=user, namespace=namespace)
        return user

    return make


@pytest.fixture(scope="session")
def console_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleServer]:
    """The console served by daphne with the embedded scheduler, once per test session."""
    if not CHROMIUM.exists():
        pytest.skip(MISSING)
    yield from run_console(tmp_path_factory.mktemp("console-server"))
