"""The language switch: Chinese for the user who chose it, on every browser they sign in from."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.test import Client

from accounts.models import Preference


def switch(client: Client, language: str, next_url: str = "/") -> Any:
    """Press the top bar's language switch."""
    return client.post("/accounts/language/", {"language": language, "next": next_url})


def test_the_switch_turns_the_console_chinese_and_back(console_login: Any) -> None:
    """The overview speaks Chinese after the switch (nav, heading, html lang), English after."""
    client = console_login("mei", "viewer")
    english = client.get("/").content.decode()
    assert '<html lang="en"' in english
    assert ">Overview<" in english

    response = switch(client, "zh-hans")
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    chinese = client.get("/").content.decode()
    assert '<html lang="zh-hans"' in chinese
    assert ">概览<" in chinese
    assert ">作业<" in chinese
    assert "退出登录" in chinese
    assert ">Overview<" not in chinese

    switch(client, "en")
    assert ">Overview<" in client.get("/").content.decode()


def test_the_choice_follows_the_user_to_another_browser(console_login: Any) -> None:
    """Saved on the account: a fresh browser (no cookie) gets Chinese right after signing in."""
    client = console_login("li", "viewer")
    switch(client, "zh-hans")
    user = client.user
    assert Preference.objects.get(user=user).language == "zh-hans"

    elsewhere = Client()
    user.set_password("pw-li")
    user.save()
    response = elsewhere.post(
        "/accounts/login/", {"username": "li", "password": "pw-li"}, follow=True
    )
    page = response.content.decode()
    assert ">概览<" in page
    assert elsewhere.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"


def test_an_unknown_language_changes_nothing(console_login: Any) -> None:
    """Only English and Simplified Chinese are offered; anything else is ignored."""
    client = console_login("ana", "viewer")
    switch(client, "xx")
    assert not Preference.objects.filter(user=client.user).exists()
    assert ">Overview<" in client.get("/").content.decode()
