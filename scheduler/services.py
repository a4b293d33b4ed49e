"""Writes to the scheduler's rows (HackSoft style: ``<entity>_<verb>(*, ...)``)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Max

from accounts.audit import audit_record
from kubelet.faults import (
    fault_inject,
    node_bind_failure,
    node_cordon,
    node_down,
    node_up,
    pod_evict,
    pod_fail,
)
from scheduler.models import SchedulerConfiguration

__all__ = [
    "fault_inject",
    "node_bind_failure",
    "node_cordon",
    "node_down",
    "node_up",
    "pod_evict",
    "pod_fail",
    "scheduler_conf_activate",
    "scheduler_conf_create",
]


def scheduler_conf_create(
    *, text: str, author: Any | None = None, comment: str = "", activate: bool = False
) -> SchedulerConfiguration:
    """Store ``text`` as the next configuration version (validated), optionally activating it.

    Raises ``django.core.exceptions.ValidationError`` naming the conf field when the
    engine's parser refuses the text; nothing is written then.
    """
    with transaction.atomic():
        latest = SchedulerConfiguration.objects.aggregate(top=Max("version"))
        configuration = SchedulerConfiguration(
            version=(latest["top"] or 0) + 1, text=text, author=author, comment=comment
        )
        configuration.full_clean()
        configuration.save()
        if activate:
            scheduler_conf_activate(configuration=configuration)
        else:
            audit_record(
                action="create",
                kind="SchedulerConfiguration",
                name=f"v{configuration.version}",
                after={"version": configuration.version, "text": text},
            )
    return configuration


def scheduler_conf_activate(*, configuration: SchedulerConfiguration) -> None:
    """Make ``configuration`` the one active version, in one transaction."""
    with transaction.atomic():
        previous = SchedulerConfiguration.objects.filter(is_active=True).first()
        # Deactivate first: the conditional unique constraint allows one active row at a time.
        SchedulerConfiguration.objects.filter(is_active=True).exclude(pk=configuration.pk).update(
            is_active=False
        )
        SchedulerConfiguration.objects.filter(pk=configuration.pk).update(is_active=True)
        # An operator's change: the audit log keeps who switched from what to what.
        audit_record(
            action="activate",
            kind="SchedulerConfiguration",
            name=f"v{configuration.version}",
            before=None
            if previous is None
            else {"version": previous.version, "text": previous.text},
            after={"version": configuration.version, "text": configuration.text},
        )
    configuration.is_active = True
