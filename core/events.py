"""Kubernetes Events the controllers record: one row per (object, reason, message), counted.

Like client-go's event recorder with its aggregation, a repeated event bumps
``count`` and ``last_timestamp`` instead of adding a row, so a job's history
reads as ``kubectl describe`` shows it.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

from django.utils import timezone

from core.models import Event, EventType

__all__ = ["CONTROLLER", "prune_events", "record_event"]

CONTROLLER = "vc-controller-manager"


# Kubernetes names an event ``<object>.<unix nanoseconds in hex>``; a controller pass records
# several events about one object at one simulated instant, so a per-process sequence fills
# the nanoseconds a microsecond clock leaves empty and the names stay distinct.
_SEQUENCE = itertools.count()


def _event_name(object_name: str, now: dt.datetime) -> str:
    nanos = int(now.timestamp() * 1e6) * 1000 + next(_SEQUENCE) % 1000
    return f"{object_name}.{nanos:x}"[:253]


def record_event(
    obj: Any,
    *,
    kind: str,
    reason: str,
    message: str,
    now: dt.datetime,
    event_type: str = EventType.NORMAL,
    source: str = CONTROLLER,
    known: list[Event] | None = None,
) -> None:
    """Record ``reason``/``message`` about ``obj`` (a Job, Pod, PodGroup or Queue row).

    ``source`` is the reporting component (``source.component``): Volcano's controllers by
    default; the Kubeflow training operator's controllers name themselves
    (``pytorchjob-controller``).
    ``known``: every event about an object of ``obj``'s kind, namespace and name, as the caller
    read them in its transaction (a controller pass reads them for a batch of jobs at once);
    searched instead of the table, and the event recorded is added to it.
    """
    namespace = getattr(obj, "namespace", "") or ""
    key = (kind, namespace, obj.name, reason, message, event_type)
    if known is not None:
        same = [e for e in known if _key(e) == key]
        existing = max(same, key=lambda e: e.last_timestamp, default=None)
    else:
        existing = (
            Event.objects.filter(
                involved_kind=kind,
                involved_namespace=namespace,
                involved_name=obj.name,
                reason=reason,
                message=message,
                type=event_type,
            )
            .order_by("-last_timestamp")
            .first()
        )
    if existing is not None and existing.involved_uid == obj.uid:
        existing.count += 1
        existing.last_timestamp = now
        existing.save(update_fields=["count", "last_timestamp"])
        return
    event = Event.objects.create(
        namespace=namespace or "default",
        name=_event_name(obj.name, now),
        involved_kind=kind,
        involved_namespace=namespace,
        involved_name=obj.name,
        involved_uid=obj.uid,
        type=event_type,
        reason=reason,
        message=message,
        source=source,
        first_timestamp=now,
        last_timestamp=now,
    )
    if known is not None:
        known.append(event)


def _key(event: Event) -> tuple[str, str, str, str, str, str]:
    return (event.involved_kind, event.involved_namespace, event.involved_name, event.reason,
            event.message, event.type)  # fmt: skip


def prune_events(*, keep_seconds: float = 3600, now: dt.datetime | None = None) -> int:
    """Delete events last seen more than ``keep_seconds`` before ``now``; return how many went.

    Kubernetes keeps events one hour (kube-apiserver's ``--event-ttl``): without an expiry the
    scheduler's Scheduled and FailedScheduling events alone would grow by one row per pod. An
    event seen again (its ``count`` bumped) lives on from its ``last_timestamp``, as the
    apiserver renews an event's lease on every update.
    """
    cutoff = (now or timezone.now()) - dt.timedelta(seconds=keep_seconds)
    deleted, _ = Event.objects.filter(last_timestamp__lt=cutoff).delete()
    return deleted
