"""The scheduler's Kubernetes Events: what ``kubectl describe pod`` and ``describe podgroup`` show.

Volcano's counterpart: the scheduler cache's event recorder. A bind records ``Normal Scheduled
Successfully assigned <ns>/<pod> to <node>``; a pod whose ``PodScheduled=False`` condition changes
records ``Warning FailedScheduling <why>`` (``taskUnschedulable`` records it only then, so a pod
that waits for an hour does not get an event every second); a PodGroup newly stamped
Unschedulable records ``Warning Unschedulable <why>``.

One session can bind 10,000 pods, so the rows are written set-based: one ``INSERT … SELECT``
that takes each object's namespace, name and uid from its own row (only ids and messages travel).
Events are not aggregated here as the controllers' ``record_event`` does: each one marks a
change, never a repeat. They expire with the other events (``prune_events``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from django.db import connection, models

from jobs.models import Event, EventType
from volcano_site.pg_arrays import int_array, text_array

__all__ = ["SCHEDULER", "record_object_events"]

SCHEDULER = "volcano-scheduler"


def record_object_events(
    model: type[models.Model],
    kind: str,
    rows: Sequence[tuple[int, str]],
    *,
    reason: str,
    now: datetime,
    event_type: str = EventType.NORMAL,
) -> int:
    """Record one event per ``(pk, message)`` about rows of ``model`` (shown as ``kind``)."""
    if not rows:
        return 0
    events = connection.ops.quote_name(Event._meta.db_table)
    table = connection.ops.quote_name(model._meta.db_table)  # our tables
    suffix = f".{int(now.timestamp() * 1e6):x}"
    columns = (
        "namespace, name, involved_kind, involved_namespace, involved_name, involved_uid, type, "
        "reason, message, source, count, first_timestamp, last_timestamp"
    )
    select = (
        "t.namespace, SUBSTR(t.name || %s, 1, 253), %s, t.namespace, t.name, t.uid, %s, %s, "
        "v.message, %s, 1, %s, %s"
    )
    head = [suffix, kind, event_type, reason, SCHEDULER]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"INSERT INTO {events} ({columns}) SELECT {select} "
                f"FROM unnest(%s::bigint[], %s::text[]) AS v(id, message) "
                f"JOIN {table} AS t ON t.id = v.id",
                [*head, now, now, int_array(r[0] for r in rows), text_array(r[1] for r in rows)],
            )
        else:
            stamp = connection.ops.adapt_datetimefield_value(now)
            # CROSS JOIN: SQLite keeps the JSON outermost and finds each row by its key.
            cursor.execute(
                f"INSERT INTO {events} ({columns}) "
                f"SELECT {select.replace('v.message', 'j.value ->> 1')} "
                f"FROM json_each(%s) AS j CROSS JOIN {table} AS t ON t.id = j.value ->> 0",
                [*head, stamp, stamp, json.dumps(list(rows))],
            )
        return int(cursor.rowcount)
