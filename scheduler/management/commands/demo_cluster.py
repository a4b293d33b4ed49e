"""``manage.py demo_cluster``: load the demo cluster; ``--stream`` keeps submitting jobs.

manage.py demo_cluster                  # nodes, queues, priority classes (idempotent)
manage.py demo_cluster --jobs 10        # and submit ten jobs now
manage.py demo_cluster --stream         # and keep submitting (for the distributed mode)
manage.py demo_cluster --size xl        # issue 34's XL cluster: 20,000 nodes in all
"""

from __future__ import annotations

import random
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from jobs.models import Job
from scheduler.demo import (
    SIZES,
    XL_STREAM_CAP,
    DemoStream,
    load_demo_cluster,
    load_xl_nodes,
    submit_next,
)


class Command(BaseCommand):
    help = "Load the demo cluster (about 20 nodes, 3 queues) and optionally a stream of jobs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--jobs", type=int, default=0, help="submit this many jobs now")
        parser.add_argument("--stream", action="store_true", help="keep submitting until Ctrl-C")
        parser.add_argument("--interval", type=float, default=3.0, help="seconds between jobs")
        parser.add_argument(
            "--size",
            choices=SIZES,
            default="",
            help="xl: add nodes until the cluster holds 20,000 (issue 34's XL cluster)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for line in load_demo_cluster():
            self.stdout.write(f"{line} created")
        if options["size"] == "xl":
            self.stdout.write(f"{load_xl_nodes()} XL nodes created")
        rng = random.Random(7)
        start = Job.objects.count()
        for n in range(start + 1, start + 1 + options["jobs"]):
            self.stdout.write(f"job.batch.volcano.sh/{submit_next(n, rng)} created")
        if options["stream"]:
            stream = DemoStream(
                interval=options["interval"],
                cap=XL_STREAM_CAP if options["size"] == "xl" else None,
            )
            self.stdout.write(f"submitting a job every {stream.interval}s (Ctrl-C stops)")
            try:
                stream.run()
            except KeyboardInterrupt:
                stream.stopping.set()
