"""``manage.py run_scheduler``: the scheduler loop in the foreground (the embedded loop's twin).

    manage.py run_scheduler                 # every schedulePeriod until Ctrl-C
    manage.py run_scheduler --once          # one cycle, print what it did
    manage.py run_scheduler --export FILE   # save the live snapshot as a scenario and exit

The loop takes the same lease as every other scheduler (Redis or database), so starting it next to
a server that runs the embedded loop, or next to Celery workers, never gives two leaders.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from scheduler.cache import read_snapshot, snapshot_to_scenario
from scheduler.models import SchedulerConfiguration
from scheduler.worker import EmbeddedWorker, run_once


class Command(BaseCommand):
    help = "Run the scheduler (controller reconcile, session, simulated kubelet) every period."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="run one cycle and exit")
        parser.add_argument("--period", type=float, help="seconds between cycles (default 1)")
        parser.add_argument("--speed", type=float, help="simulated clock speed factor")
        parser.add_argument("--export", type=Path, help="write the snapshot as a scenario file")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["speed"]:
            os.environ["VOLCANO_SIM_SPEED"] = str(options["speed"])
        if options["export"]:
            active = SchedulerConfiguration.objects.filter(is_active=True).first()
            snapshot = read_snapshot()
            text = snapshot_to_scenario(
                snapshot.cluster, conf_text=active.text if active else "", name="live-snapshot"
            )
            options["export"].write_text(text)
            self.stdout.write(f"wrote {options['export']} ({len(snapshot.pods)} pods)")
            return
        if options["once"]:
            summary = run_once()
            if summary.error:
                self.stderr.write(summary.error)
            elif summary.applied is not None:
                self.stdout.write(
                    f"bound {summary.applied.bound}, evicted {summary.applied.evicted}, "
                    f"refused {len(summary.applied.skipped_binds)} stale"
                )
            return
        worker = EmbeddedWorker(period=options["period"])
        self.stdout.write(
            f"scheduling every {worker.period}s as {worker.lease.holder} (Ctrl-C stops)"
        )
        try:
            worker.run()  # in this thread
        except KeyboardInterrupt:
            worker.stopping.set()
