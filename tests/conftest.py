"""Shared fixtures. Nothing here touches the database unless a test asks for it.

Engine tests (tests/engine/) never request ``db``; pytest-django then makes any
database access fail loudly, which is how the engine's purity is kept honest.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client, override_settings
from hypothesis.configuration import set_hypothesis_home_dir

from tests.kube.api_kit import token_client

REPO_ROOT = Path(__file__).resolve().parent.parent
# Hypothesis keeps its example database beside the tests by default; a run writes nothing
# into the work tree, so it goes to a temporary folder (kept between runs on this machine).
set_hypothesis_home_dir(str(Path(tempfile.gettempdir()) / "volcano-hypothesis"))
# The shared Volcano examples sit beside the clone (../shared/examples), here and in CI.
EXAMPLES_DIR = REPO_ROOT / "tests" / "fixtures" / "examples"  # a copy of shared/examples


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--database-only",
        action="store_true",
        help="run only the tests that use this process's database (CI's second pass, on PostgreSQL)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``--database-only``, deselect every test that never opens this process's database.

    CI runs the suite twice: on SQLite, then on PostgreSQL with Redis. A test that asks for no
    database (the engine, the scenario files, parsers, the kubectl tests' own SQLite server
    subprocess) does the same thing both times, so the second pass leaves it out and spends its
    time where the two databases differ. A test uses the database when it asks for ``db``,
    ``transactional_db``, ``live_server`` or anything built on them (``django_db_setup`` is in
    their closure) or carries ``django_db``.
    """
    if not config.getoption("--database-only"):
        return
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        names = getattr(item, "fixturenames", ())
        uses = item.get_closest_marker("django_db") is not None or "django_db_setup" in names
        (keep if uses else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture
def examples_dir() -> Path:
    """Return the directory of Volcano's example manifests and confs."""
    return EXAMPLES_DIR


@pytest.fixture
def superuser(db: None, django_user_model: Any) -> Any:
    """Return an administrator account."""
    return django_user_model.objects.create_superuser("admin", "admin@example.com", "pw-admin-1")


@pytest.fixture
def superuser_client(superuser: Any) -> Client:
    """Return a test client logged in as the administrator."""
    client = Client()
    client.force_login(superuser)
    return client


@pytest.fixture(autouse=True)
def _cheap_password_hashes(settings: Any) -> None:
    """Hash the passwords of the users tests make with MD5: PBKDF2's rounds cost about half a
    second a user, and the suite makes hundreds (the production hasher is the settings')."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    """Keep broadcasts inside the test process whatever REDIS_URL says."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.fixture(autouse=True, scope="session")
def _private_redis_per_xdist_worker() -> Iterator[None]:
    """Give each pytest-xdist worker a Redis database of its own (1, 2, ...) when REDIS_URL is set.

    The scheduler's leader lease and the metrics the scheduler leaves for ``/metrics`` live in
    Redis (the lease's key, Django's cache): two workers side by side on one Redis database
    would take each other's lease and read each other's figures. Session-scoped, so that it
    holds before any module's fixtures run. Database 0 stays the developer's; 9 and up are the
    Celery stacks' (tests/distributed/celery_kit.py).
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker or not django_settings.REDIS_URL:
        yield
        return
    url = django_settings.REDIS_URL.rsplit("/", 1)[0] + f"/{1 + int(worker.removeprefix('gw'))}"
    caches = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    }
    with override_settings(REDIS_URL=url, CACHES=caches):
        yield


@pytest.fixture
def console_login(db: None, django_user_model: Any, settings: Any) -> Any:
    """Return ``login(name, role, namespaces=())``: a test client signed in to the console.

    ``role`` None makes a user with no role; namespaces become grants.
    """
    from django.contrib.auth.models import Group

    from accounts.models import NamespaceGrant

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

    def login(name: str, role: str | None, namespaces: tuple[str, ...] = ()) -> Client:
        user = django_user_model.objects.create_user(name, password="pw-" + name)
        if role is not None:
            user.groups.add(Group.objects.get_or_create(name=role)[0])  # flushed DBs too
        for namespace in namespaces:
            NamespaceGrant.objects.create(user=user, namespace=namespace)
        client = Client()
        client.force_login(user)
        client.user = user  # type: ignore[attr-defined]
        return client

    return login


@pytest.fixture
def make_user(db: None, django_user_model: Any, settings: Any) -> Callable[..., Any]:
    """Return a factory of users holding ``role`` and granted ``namespaces`` (for the API).

    Their passwords are hashed cheaply: the role tables log in dozens of users.
    """
    from django.contrib.auth.models import Group

    from accounts.models import NamespaceGrant

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

    def make(name: str, role: str | None, namespaces: tuple[str, ...] = ()) -> Any:
        user = django_user_model.objects.create_user(name, password="pw-" + name)
        if role is not None:
            user.groups.add(Group.objects.get(name=role))
        for namespace in namespaces:
            NamespaceGrant.objects.create(user=user, namespace=namespace)
        return user

    return make


@pytest.fixture
def operator(make_user: Callable[..., Any]) -> Client:
    """Return an API client of an operator (every namespace, queues, nodes, configuration)."""
    return token_client(make_user("olga", "operator"))


@pytest.fixture
def submitter(make_user: Callable[..., Any]) -> Client:
    """Return an API client of a submitter granted the ``default`` namespace."""
    return token_client(make_user("sam", "submitter", ("default",)))


@pytest.fixture
def viewer(make_user: Callable[..., Any]) -> Client:
    """Return an API client of a viewer granted the ``default`` namespace."""
    return token_client(make_user("vera", "viewer", ("default",)))
