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
import select
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
        _relay(secure, upstream)


def _relay(secure: ssl.SSLSocket, upstream: socket.socket) -> None:
    """Pipe both ways from one thread until either end closes, then close both.

    One thread, not one per direction: OpenSSL's connection object must not be read and written
    (or closed) by two threads at once; a reader thread in ``recv`` while the other direction
    closed the socket crashed the test process (SIGSEGV in ``ssl.read``).
    """
    try:
        while True:
            # Bytes OpenSSL already decrypted are not visible to select(): read them first.
            ready = [secure] if secure.pending() else select.select([secure, upstream], [], [])[0]
            for source in ready:
                sink = upstream if source is secure else secure
                chunk = source.recv(65536)
                if not chunk:
                    return
                sink.sendall(chunk)
    except OSError:
        pass
    finally:
        for end in (secure, upstream):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()
