"""``manage.py reconcile``: run the job and queue controllers once (or every N seconds).

The worker calls ``jobs.controller.reconcile_all`` every period; this command is
the same pass by hand, for debugging and for driving a cluster from a shell.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from jobs.controller import reconcile_all


class Command(BaseCommand):
    """Reconcile every job and queue."""

    help = "Run the job and queue controllers: once, or every --every seconds."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--every", type=float, default=0.0, help="Repeat every N seconds")
        parser.add_argument("--times", type=int, default=0, help="Stop after N passes (0: never)")

    def handle(self, *args: Any, **options: Any) -> None:
        passes = 0
        while True:
            report = reconcile_all()
            passes += 1
            self.stdout.write(
                f"{report.jobs} jobs, {len(report.changed_jobs)} changed, "
                f"{report.pods_created} pods created, {report.pods_deleted} deleted, "
                f"{report.commands} commands, {len(report.errors)} errors "
                f"({report.duration_ms:.0f} ms)"
            )
            for key, steps in sorted(report.transitions.items()):
                self.stdout.write(f"  {key}: {' '.join(steps)}")
            for key, error in sorted(report.errors.items()):
                self.stderr.write(f"  {key}: {error}")
            if not options["every"] or (options["times"] and passes >= options["times"]):
                return
            time.sleep(options["every"])
