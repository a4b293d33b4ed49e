"""``manage.py ensure_admin``: make sure an administrator account exists.

The password comes from ``ADMIN_PASSWORD``; when that is unset a strong one is
generated and printed once (it is never stored in clear anywhere). Running the
command again leaves an existing account alone, so ``make run`` stays idempotent.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    """Create the admin account if it does not exist yet."""

    help = "Create the administrator account (password from ADMIN_PASSWORD or generated)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--username", default=os.environ.get("ADMIN_USERNAME", "admin"), help="Account name"
        )
        parser.add_argument("--email", default=os.environ.get("ADMIN_EMAIL", ""), help="E-mail")

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        username: str = options["username"]
        if user_model.objects.filter(username=username).exists():
            self.stdout.write(f"Admin account {username!r} already exists.")
            return
        password = os.environ.get("ADMIN_PASSWORD") or ""
        generated = not password
        if generated:
            password = secrets.token_urlsafe(15)
        user_model.objects.create_superuser(username, options["email"], password)
        if generated:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Created admin account {username!r} with password: {password}\n"
                    "(shown once; set ADMIN_PASSWORD to choose it yourself)"
                )
            )
        else:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Created admin account {username!r} (password from ADMIN_PASSWORD)."
                )
            )
