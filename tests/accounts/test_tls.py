"""The HTTPS listener `make run` adds for kubectl, and the kubeconfig that names it."""

from __future__ import annotations

import base64
import io
import ipaddress
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography import x509
from django.core.management import call_command
from django.test import Client, override_settings

from accounts.tls import ensure_certificate

pytestmark = pytest.mark.django_db


def test_certificate_is_made_once_for_localhost_and_kept(tmp_path: Path) -> None:
    cert_path = ensure_certificate(tmp_path)
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert ipaddress.ip_address("127.0.0.1") in names.get_values_for_type(x509.IPAddress)
    assert "localhost" in names.get_values_for_type(x509.DNSName)
    assert (tmp_path / "tls.key").stat().st_mode & 0o777 == 0o600
    first = cert_path.read_bytes()
    assert ensure_certificate(tmp_path).read_bytes() == first  # clients keep trusting it


def test_endpoint_command_prints_daphnes_ssl_endpoint(tmp_path: Path) -> None:
    out = io.StringIO()
    with override_settings(DATA_DIR=tmp_path):
        call_command("tls_certificate", "--endpoint", "8443", stdout=out)
    endpoint = out.getvalue().strip()
    assert endpoint.startswith("ssl:8443:interface=127.0.0.1:privateKey=")
    assert f"certKey={tmp_path / 'tls.crt'}" in endpoint
    assert (tmp_path / "tls.crt").exists()


def test_profile_kubeconfig_names_the_tls_listener_and_trusts_it(
    client: Client, django_user_model: Any, tmp_path: Path
) -> None:
    client.force_login(django_user_model.objects.create_user("tl", password="pw-tl"))
    cert = ensure_certificate(tmp_path)
    with override_settings(DATA_DIR=tmp_path, TLS_SERVER_URL="https://127.0.0.1:8443"):
        answer = client.post("/accounts/kubeconfig/")
    cluster = yaml.safe_load(answer.content)["clusters"][0]["cluster"]
    assert cluster["server"] == "https://127.0.0.1:8443"
    assert base64.b64decode(cluster["certificate-authority-data"]) == cert.read_bytes()


def test_kubeconfig_command_defaults_to_the_tls_listener(
    django_user_model: Any, tmp_path: Path
) -> None:
    django_user_model.objects.create_user("tc", password="pw-tc")
    out = io.StringIO()
    with override_settings(DATA_DIR=tmp_path, TLS_SERVER_URL=""):
        call_command("kubeconfig", "--user", "tc", stdout=out)
    cluster = yaml.safe_load(out.getvalue())["clusters"][0]["cluster"]
    assert cluster["server"] == "https://127.0.0.1:8443"
    assert (
        base64.b64decode(cluster["certificate-authority-data"])
        == (tmp_path / "tls.crt").read_bytes()
    )
