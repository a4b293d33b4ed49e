"""Login, the profile page's tokens (issued once, revoked), and admins issuing tokens."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.test import Client

from accounts.models import ApiToken
from tests.kube.api_kit import QUEUES


def test_login_page_signs_in_and_lands_on_the_console(make_user: Callable[..., Any]) -> None:
    make_user("lia", "viewer", ("default",))
    client = Client()
    assert client.get("/accounts/login/").status_code == 200

    response = client.post(
        "/accounts/login/", {"username": "lia", "password": "pw-lia"}, follow=True
    )

    assert response.redirect_chain[-1][0] == "/"
    assert b"Overview" in response.content
    response = client.get("/accounts/profile/")
    assert b"Roles: viewer" in response.content
    assert b"Namespaces: default" in response.content


def test_profile_requires_login() -> None:
    response = Client().get("/accounts/profile/")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_profile_issues_a_token_shown_once_that_the_api_accepts(
    make_user: Callable[..., Any],
) -> None:
    user = make_user("lia", "viewer")
    client = Client()
    client.force_login(user)

    response = client.post("/accounts/profile/", {"name": "laptop"}, follow=True)

    assert response.redirect_chain == [("/accounts/profile/", 302)]
    token = re.search(rb'id="new-token">([^<]+)<', response.content)
    assert token is not None
    stored = ApiToken.objects.get(user=user)
    assert stored.name == "laptop"
    assert token.group(1).decode() not in stored.digest  # only the hash is kept
    api = Client(headers={"authorization": f"Bearer {token.group(1).decode()}"})
    assert api.get(QUEUES).status_code == 200
    assert b"new-token" not in client.get("/accounts/profile/").content  # a reload: not again
    assert ApiToken.objects.filter(user=user).count() == 1


def test_profile_revokes_a_token(make_user: Callable[..., Any]) -> None:
    user = make_user("lia", "viewer")
    client = Client()
    client.force_login(user)
    token = re.search(
        rb'id="new-token">([^<]+)<',
        client.post("/accounts/profile/", {"name": "ci"}, follow=True).content,
    )
    assert token is not None
    stored = ApiToken.objects.get(user=user)

    client.post(f"/accounts/tokens/{stored.pk}/revoke/")

    stored.refresh_from_db()
    assert stored.revoked_at is not None
    api = Client(headers={"authorization": f"Bearer {token.group(1).decode()}"})
    assert api.get(QUEUES).status_code == 401


def test_a_user_cannot_revoke_someone_elses_token(make_user: Callable[..., Any]) -> None:
    owner, other = make_user("own", "viewer"), make_user("oth", "viewer")
    client = Client()
    client.force_login(owner)
    client.post("/accounts/profile/", {"name": "mine"})
    token = ApiToken.objects.get(user=owner)
    intruder = Client()
    intruder.force_login(other)

    response = intruder.post(f"/accounts/tokens/{token.pk}/revoke/")

    assert response.status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None


def test_admin_issues_a_token_for_a_user(
    django_user_model: Any, make_user: Callable[..., Any]
) -> None:
    user = make_user("bot", "submitter")
    admin = django_user_model.objects.create_superuser("ada", "ada@example.com", None)
    client = Client()
    client.force_login(admin)

    response = client.post(
        "/admin/accounts/apitoken/add/", {"user": user.pk, "name": "pipeline"}, follow=True
    )

    shown = re.search(r"Token for bot: (\S+)", response.content.decode())
    assert shown is not None
    api = Client(headers={"authorization": f"Bearer {shown.group(1)}"})
    assert api.get(QUEUES).status_code == 200
