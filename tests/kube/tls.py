"""A TLS front for the live test server: kubectl sends bearer tokens only over HTTPS.

client-go leaves the ``Authorization`` header off plain-HTTP requests, so the
tests put a small TLS relay (a self-signed certificate for 127.0.0.1, trusted
through the kubeconfig's ``certificate-authority-data``) in front of
pytest-django's HTTP live server, as a deployment puts a TLS proxy or daphne's
``ssl:`` endpoint in front of the app.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import socket
import ssl
import threading
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

__all__ = ["TLSRelay", "self_signed"]


def self_signed(directory: Path) -> tuple[Path, Path]:
    """Write a self-signed certificate and key for 127.0.0.1; return (cert, key) paths."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "server.crt", directory / "server.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


class TLSRelay:
    """Accept TLS on a free port and pipe each connection to ``127.0.0.1:target_port``."""

    def __init__(self, target_port: int, cert: Path, key: Path) -> None:
        self.target_port = target_port
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        """Return the relay's https URL."""
        return f"https://127.0.0.1:{self.port}"

    def start(self) -> TLSRelay:
        """Start accepting; return self."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting and close the listener (open pipes end with their peers)."""
        self.stopped.set()
        self.thread.join(timeout=5)
        self.listener.close()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._handle, args=(client,), daemon=True).start()

    def _handle(self, client: socket.socket) -> None:
        try:
            client.settimeout(10)
            secure = self.context.wrap_socket(client, server_side=True)
            secure.settimeout(None)
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
        except (OSError, ssl.SSLError):
            client.close()
            return
        threading.Thread(target=_pipe, args=(upstream, secure), daemon=True).start()
        _pipe(secure, upstream)


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()
