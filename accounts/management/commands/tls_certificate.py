"""``manage.py tls_certificate [--endpoint PORT]``: make the local TLS certificate once.

With ``--endpoint`` it prints daphne's endpoint string for that port, which is how
``make run`` adds its HTTPS listener (kubectl sends tokens only over HTTPS), and records
that address in the data directory for ``manage.py kubeconfig`` (``accounts.tls``).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from accounts.tls import certificate_paths, ensure_certificate, record_endpoint


class Command(BaseCommand):
    """Create (if missing) the self-signed certificate in the data directory."""

    help = "Create the local TLS certificate; print its path, or daphne's endpoint with --endpoint."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--endpoint", type=int, default=0, help="Print daphne's ssl endpoint")
        parser.add_argument("--interface", default="127.0.0.1", help="Address to listen on")

    def handle(self, *args: Any, **options: Any) -> None:
        ensure_certificate(hosts=(options["interface"],))
        cert, key = certificate_paths()
        if options["endpoint"]:
            record_endpoint(options["interface"], options["endpoint"])

            # Colons inside an endpoint value must be escaped for Twisted's parser.
            def esc(value: str) -> str:
                return value.replace(":", r"\:")

            self.stdout.write(
                f"ssl:{options['endpoint']}:interface={esc(options['interface'])}"
                f":privateKey={esc(str(key))}:certKey={esc(str(cert))}"
            )
        else:
            self.stdout.write(str(cert))
