"""``manage.py failpoint``: arm, disarm or list failpoints shared by every process.

manage.py failpoint arm NAME ACTION [--value S] [--match SUBJECT] [--times N]
manage.py failpoint disarm NAME | disarm --all
manage.py failpoint list

Processes see the rows when they run with ``VOLCANO_FAILPOINTS_ENABLED=1`` (once per controller
pass and scheduling cycle). Refused in production settings. See ``kube/failpoints.py``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from kube import failpoints
from kube.models import Failpoint


class Command(BaseCommand):
    help = "Arm, disarm or list the failpoints every worker process reloads."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("verb", choices=("arm", "disarm", "list"))
        parser.add_argument("name", nargs="?", default="", help=", ".join(failpoints.POINTS))
        parser.add_argument("action", nargs="?", default="", help=", ".join(failpoints.ACTIONS))
        parser.add_argument("--value", type=float, default=0.0, help="delay seconds; N; offset")
        parser.add_argument("--match", default="", help="only this subject (bind.node: a node)")
        parser.add_argument("--times", type=int, default=None, help="fire N times in all")
        parser.add_argument("--all", action="store_true", help="disarm: every failpoint")

    def handle(self, *args: Any, **options: Any) -> None:
        if getattr(settings, "VOLCANO_PRODUCTION", False):
            raise CommandError("failpoints are refused in production settings")
        verb, name = options["verb"], options["name"]
        if verb == "list":
            for row in Failpoint.objects.order_by("name"):
                times = "always" if row.times is None else f"{row.times} more"
                self.stdout.write(f"{row.name}={row.action}:{row.value:g}@{row.match} ({times})")
            return
        if verb == "disarm":
            rows = (
                Failpoint.objects.all() if options["all"] else Failpoint.objects.filter(name=name)
            )
            self.stdout.write(f"disarmed {rows.delete()[0]}")
            return
        armed = failpoints.Armed(name, options["action"], options["value"], options["match"],
                                 options["times"])  # fmt: skip
        try:
            failpoints.check(armed)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        Failpoint.objects.update_or_create(
            name=name,
            defaults={
                "action": armed.action,
                "value": armed.value,
                "match": armed.match,
                "times": armed.times,
            },
        )
        self.stdout.write(f"armed {name}={armed.action}")
