"""Writes to jobs' rows (HackSoft style: ``<entity>_<verb>(*, ...)``).

The console never moves a job between phases itself: it issues a bus Command,
which the job controller consumes (Volcano's vcctl ``job suspend/resume`` path).
"""

from __future__ import annotations

import secrets
from typing import Any

from jobs.models import Command, CommandAction, Job, TargetKind

__all__ = ["command_issue"]


def command_issue(*, job: Job, action: CommandAction, issuer: Any | None = None) -> Command:
    """Create a Command asking the controller to apply ``action`` to ``job``."""
    # Like metadata.generateName: a readable prefix and a random suffix.
    name = f"{job.name[:200]}-{action.lower()}-{secrets.token_hex(3)}"
    return Command.objects.create(
        namespace=job.namespace,
        name=name,
        action=action,
        target_kind=TargetKind.JOB,
        target_name=job.name,
        target_uid=job.uid,
        issuer=issuer if issuer is not None and issuer.is_authenticated else None,
    )
