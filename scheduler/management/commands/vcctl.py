"""``manage.py vcctl job|queue ...``: Volcano's vcctl, a thin entry point over ``vcctl``.

The CLI talks to the REST API over HTTP (``--server``/``VOLCANO_SERVER``, ``--token``/
``VOLCANO_TOKEN``), never to the database, so it needs no system checks. Exit codes: 0 done,
1 refused by the server or unreachable (the message is printed), 2 bad command line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from vcctl import add_arguments, execute


class Command(BaseCommand):
    """Run one vcctl command (``job run``, ``queue list`` ...) against the REST API."""

    help = "Volcano's vcctl over the REST API: job run|list|view|suspend|resume|delete, queue ..."
    requires_system_checks = ()
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        code = execute(argparse.Namespace(**options), stdout=self.stdout, stderr=self.stderr)
        if code:
            sys.exit(code)
