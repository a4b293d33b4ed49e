"""The local TLS endpoint: a self-signed certificate kept in the data directory.

kubectl sends a bearer token only over HTTPS, so ``make run`` serves the same
application on a second, TLS port (default 8443) with a certificate made here
once. The kubeconfig the profile page hands out names that endpoint and embeds
the certificate as its authority, so ``kubectl`` works with nothing else to set up.

The server knows its endpoint from ``VOLCANO_TLS_URL`` (``make run`` sets it); a
``manage.py kubeconfig`` run in another shell does not, so ``make run`` also records
the endpoint it serves in the data directory (``tls_certificate --endpoint``:
``tls-endpoint``), and both read ``served_url``: ``make run TLS_PORT=18401`` yields
kubeconfigs for 18401 wherever they are made.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.conf import settings

__all__ = [
    "DEFAULT_URL",
    "certificate_paths",
    "ensure_certificate",
    "local_tls_server",
    "record_endpoint",
    "served_url",
]

_VALID_DAYS = 365
# What ``make run`` serves unless told otherwise (``TLS_PORT``).
DEFAULT_URL = "https://127.0.0.1:8443"
_ENDPOINT_FILE = "tls-endpoint"


def certificate_paths(data_dir: Path | None = None) -> tuple[Path, Path]:
    """Return where the certificate and its key live (``tls.crt``, ``tls.key``)."""
    base = Path(data_dir or settings.DATA_DIR)
    return base / "tls.crt", base / "tls.key"


def ensure_certificate(data_dir: Path | None = None, *, hosts: tuple[str, ...] = ()) -> Path:
    """Return the certificate path, making a self-signed one for localhost if none exists.

    An existing certificate is kept (clients may already trust it) until it expires.
    """
    cert_path, key_path = certificate_paths(data_dir)
    if cert_path.exists() and key_path.exists():
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        if cert.not_valid_after_utc > dt.datetime.now(dt.UTC) + dt.timedelta(days=1):
            return cert_path
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = [x509.DNSName("localhost")]
    for host in ("127.0.0.1", "::1", *hosts):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "volcano-console")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=_VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_path.chmod(0o600)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path


def record_endpoint(host: str, port: int, data_dir: Path | None = None) -> str:
    """Record ``https://host:port`` as the endpoint this data directory's server serves."""
    shown = f"[{host}]" if ":" in host else host
    if host in ("0.0.0.0", "::"):  # listening everywhere: clients dial loopback
        shown = "127.0.0.1"
    url = f"https://{shown}:{port}"
    path = Path(data_dir or settings.DATA_DIR) / _ENDPOINT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(url + "\n")
    return url


def served_url(data_dir: Path | None = None) -> str:
    """Return the TLS endpoint's URL: ``VOLCANO_TLS_URL``, else the one ``make run`` recorded,
    else "" (no server has said where it listens)."""
    url = str(getattr(settings, "TLS_SERVER_URL", ""))
    if url:
        return url
    path = Path(data_dir or settings.DATA_DIR) / _ENDPOINT_FILE
    return path.read_text().strip() if path.exists() else ""


def local_tls_server() -> tuple[str, bytes]:
    """Return the TLS endpoint's URL and certificate, or ``("", b"")`` when none is served."""
    url = served_url()
    cert_path, _ = certificate_paths()
    if not url or not cert_path.exists():
        return "", b""
    return url, cert_path.read_bytes()
