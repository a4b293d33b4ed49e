"""``manage.py apply -f FILE_OR_DIR``: create or update objects from manifests, like kubectl.

Every file (several with ``-f`` repeated; directories recursively; multi-document
YAML; ``.conf`` scheduler configurations) is read and checked before anything is
written, then everything is applied in one transaction. On a bad manifest the
command exits non-zero naming the file and the field, and nothing is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apis.errors import ManifestError
from kube.manifests import apply_manifests, read_manifests


class Command(BaseCommand):
    """Apply manifests to the database."""

    help = "Create or update objects from YAML/JSON manifests and scheduler .conf files."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "-f",
            "--filename",
            action="append",
            required=True,
            dest="paths",
            help="A manifest file or a directory of them (repeatable)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        loaded = []
        try:
            for name in options["paths"]:
                path = Path(name)
                if not path.exists():
                    raise CommandError(f"the path {name!r} does not exist")
                loaded.extend(read_manifests(path))
            if not loaded:
                raise CommandError("no objects passed to apply")
            lines = apply_manifests(loaded)
        except ManifestError as exc:
            raise CommandError(str(exc)) from exc
        for line in lines:
            self.stdout.write(line)
