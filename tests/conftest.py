"""Shared fixtures. Nothing here touches the database unless a test asks for it.

Engine tests (tests/engine/) never request ``db``; pytest-django then makes any
database access fail loudly, which is how the engine's purity is kept honest.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from hypothesis.configuration import set_hypothesis_home_dir

from tests.kube.api_kit import token_client

REPO_ROOT = Path(__file__).resolve().parent.parent
# Hypothesis keeps its example database beside the tests by default; a run writes nothing
# into the work tree, so it goes to a temporary folder (kept between runs on this machine).
set_hypothesis_home_dir(str(Path(tempfile.gettempdir()) / "volcano-hypothesis"))
# The shared Volcano examples sit beside the clone (../shared/examples), here and in CI.
EXAMPLES_DIR = REPO_ROOT / "tests" / "fixtures" / "examples"  # a copy of shared/examples


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
