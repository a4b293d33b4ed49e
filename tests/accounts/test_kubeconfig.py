"""The kubeconfig a user gets: from ``manage.py kubeconfig`` and from the profile page."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.test import Client, override_settings

from accounts.authentication import token_digest
from accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def _token_of(config: dict[str, Any]) -> str:
    return str(config["users"][0]["user"]["token"])


def test_command_writes_a_kubeconfig_whose_token_is_live(
    django_user_model: Any, tmp_path: Path
) -> None:
    user = django_user_model.objects.create_user("ada", password="pw-ada")
    target = tmp_path / "config"
    call_command(
        "kubeconfig", "--user", "ada", "--server", "https://volcano.example:8443", "-o", str(target)
    )
    config = yaml.safe_load(target.read_text())
    assert target.stat().st_mode & 0o777 == 0o600
    assert config["clusters"][0]["cluster"]["server"] == "https://volcano.example:8443"
    assert config["current-context"] == "ada@volcano-console"
    assert config["contexts"][0]["context"]["namespace"] == "default"
    row = ApiToken.objects.get(digest=token_digest(_token_of(config)))
    assert row.user == user
    assert row.name == "kubeconfig"


def test_command_embeds_the_certificate_authority(django_user_model: Any, tmp_path: Path) -> None:
    django_user_model.objects.create_user("di", password="pw-di")
    authority = tmp_path / "ca.crt"
    authority.write_bytes(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    out = io.StringIO()
    call_command(
        "kubeconfig", "--user", "di", "--certificate-authority", str(authority), stdout=out
    )
    cluster = yaml.safe_load(out.getvalue())["clusters"][0]["cluster"]
    assert base64.b64decode(cluster["certificate-authority-data"]) == authority.read_bytes()
    out = io.StringIO()
    call_command("kubeconfig", "--user", "di", "--insecure-skip-tls-verify", stdout=out)
    assert yaml.safe_load(out.getvalue())["clusters"][0]["cluster"]["insecure-skip-tls-verify"]


def test_command_prints_to_stdout_and_refuses_an_unknown_user(
    django_user_model: Any, tmp_path: Path
) -> None:
    django_user_model.objects.create_user("bo", password="pw-bo")
    out = io.StringIO()
    with override_settings(DATA_DIR=tmp_path):  # the default server's certificate goes here
        call_command("kubeconfig", "--user", "bo", stdout=out)
    assert yaml.safe_load(out.getvalue())["kind"] == "Config"
    with pytest.raises(CommandError, match="no user named 'nobody'"):
        call_command("kubeconfig", "--user", "nobody")


def test_profile_page_offers_and_downloads_a_kubeconfig(
    client: Client, django_user_model: Any
) -> None:
    user = django_user_model.objects.create_user("cy", password="pw-cy")
    client.force_login(user)
    page = client.get("/accounts/profile/")
    assert b"Download kubeconfig" in page.content
    answer = client.post("/accounts/kubeconfig/")
    assert answer.status_code == 200
    assert answer["Content-Disposition"] == 'attachment; filename="kubeconfig-cy.yaml"'
    config = yaml.safe_load(answer.content)
    assert config["clusters"][0]["cluster"]["server"] == "http://testserver"
    assert ApiToken.objects.filter(user=user, digest=token_digest(_token_of(config))).exists()


def test_kubeconfig_download_needs_a_login_and_a_post(client: Client) -> None:
    assert client.post("/accounts/kubeconfig/").status_code == 302
    assert ApiToken.objects.count() == 0
