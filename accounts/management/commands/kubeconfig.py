"""``manage.py kubeconfig --user NAME [--server URL] [-o FILE]``: a kubeconfig with a new token."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.kubeconfig import kubeconfig_create
from accounts.tls import DEFAULT_URL, ensure_certificate, served_url


class Command(BaseCommand):
    """Write a kubeconfig for a user (a new API token is issued and named ``kubeconfig``)."""

    help = "Print (or write with -o) a kubeconfig for USER pointing at this server."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="The user the token is issued to")
        parser.add_argument(
            "--server",
            default="",
            help="The server URL kubectl calls (default: the HTTPS listener `make run` serves, "
            "https://HOST:TLS_PORT); its self-signed certificate is trusted either way unless "
            "--certificate-authority or --insecure-skip-tls-verify says otherwise",
        )
        parser.add_argument("--namespace", default="default", help="The context's namespace")
        parser.add_argument(
            "--certificate-authority",
            default="",
            help="PEM file of the CA that signed the server's certificate (embedded)",
        )
        parser.add_argument(
            "--insecure-skip-tls-verify",
            action="store_true",
            help="Do not verify the server's certificate (self-signed, testing only)",
        )
        parser.add_argument("-o", "--output", default="", help="Write to this file (mode 600)")

    def handle(self, *args: Any, **options: Any) -> None:
        model = get_user_model()
        user = model._default_manager.filter(**{model.USERNAME_FIELD: options["user"]}).first()
        if user is None:
            raise CommandError(f"no user named {options['user']!r}")
        if not user.is_active:
            raise CommandError(f"user {options['user']!r} is not active")
        authority = options["certificate_authority"]
        server = options["server"]
        ca_pem = Path(authority).read_bytes() if authority else b""
        # A name for the same listener (a LAN address, a tunnel) still presents our certificate.
        server = server or served_url() or DEFAULT_URL
        if server.startswith("https://") and not ca_pem and not options["insecure_skip_tls_verify"]:
            ca_pem = ensure_certificate().read_bytes()
        text = kubeconfig_create(
            user=user,
            server=server,
            namespace=options["namespace"],
            ca_pem=ca_pem,
            insecure=options["insecure_skip_tls_verify"],
        )
        if options["output"]:
            path = Path(options["output"])
            path.write_text(text)
            path.chmod(0o600)
            self.stderr.write(f"kubeconfig for {options['user']} written to {path}")
        else:
            self.stdout.write(text, ending="")
