"""``manage.py simulate FILE... [--format json|text] [--check]``: what-if runs of the pure engine.

A thin entry point: the work (parsing, one session per file, output, comparison with ``expect:``)
is ``scheduler.engine.simulate``, which needs no database. Exit codes: 0 ok, 1 ``--check`` found a
difference, 2 bad input (nothing printed but the errors).
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from scheduler.engine.simulate import add_arguments, execute


class Command(BaseCommand):
    """Run one scheduling session per scenario file and print the decisions."""

    help = "Run scenario files through the scheduler engine and print (or --check) the decisions."

    def add_arguments(self, parser: CommandParser) -> None:
        add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        code = execute(
            options["files"],
            fmt=options["format"],
            check=options["check"],
            stdout=self.stdout,
            stderr=self.stderr,
        )
        if code:
            sys.exit(code)
