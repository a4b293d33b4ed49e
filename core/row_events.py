"""Kubernetes Events recorded set-based, one per row a write touches: the scheduler's and the
simulated kubelet's.

The controllers record their events one by one and aggregate repeats (``core.events``); the
scheduler and the kubelet write thousands of rows in one statement, so their events are written
the same way: one ``INSERT … SELECT`` that takes each object's namespace, name and uid from its
own row (only ids and messages travel). In the core app beside ``Event`` because both writers
use it (``scheduler.cache``, ``kubelet.runtime``) and neither may import the other.

The scheduler's, as Volcano's scheduler cache records them (``kubectl describe pod`` and
``describe podgroup`` show them): a bind records ``Normal Scheduled Successfully assigned
<ns>/<pod> to <node>``; a pod whose ``PodScheduled=False`` condition changes records ``Warning
FailedScheduling <why>`` (``taskUnschedulable`` records it only then, so a pod that waits for an
hour does not get an event every second); a PodGroup newly stamped Unschedulable records
``Warning Unschedulable <why>``. The kubelet's: a container that restarts or ends
(``record_query_events`` over the tick's own query).

On PostgreSQL the insert is part of the write itself (``RowEvents`` given to
``scheduler.cache.rows.write_rows`` becomes a CTE fed by the write's ``RETURNING``), so an event
exists exactly when its write took, at no extra statement. Events are not aggregated here as
the controllers' ``record_event`` does: each one marks a change, never a repeat. They expire
with the other events (``prune_events``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, models

from core.models import Event, EventType

__all__ = [
    "KUBELET",
    "SCHEDULER",
    "RowEvents",
    "events_insert",
    "record_object_events",
    "record_query_events",
]

SCHEDULER = "volcano-scheduler"
KUBELET = "kubelet"
_COLUMNS = (
    "namespace, name, involved_kind, involved_namespace, involved_name, involved_uid, type, "
    "reason, message, source, count, first_timestamp, last_timestamp"
)


@dataclass(frozen=True, slots=True)
class RowEvents:
    """The events a set-based write records about the rows it writes, one per message given.

    ``kind`` is the involved object's kind as ``kubectl`` shows it (``Pod``, ``PodGroup``).
    """

    kind: str
    reason: str
    now: datetime
    event_type: str = EventType.NORMAL
    source: str = SCHEDULER

    def head(self) -> list[Any]:
        """Parameters shared by every event: name suffix, kind, type, reason, source."""
        suffix = f".{int(self.now.timestamp() * 1e6):x}"
        return [suffix, self.kind, self.event_type, self.reason, self.source]


def _select(row: str, message: str) -> str:
    return (
        f"{row}.namespace, SUBSTR({row}.name || %s, 1, 253), %s, {row}.namespace, {row}.name, "
        f"{row}.uid, %s, %s, {message}, %s, 1, %s, %s"
    )


def events_insert(spec: RowEvents, source: str) -> tuple[str, list[Any], list[str]]:
    """PostgreSQL: return ``(sql, params, columns)`` inserting the events of CTE ``source``.

    ``source`` must have ``columns``: the row's ``namespace``, ``name`` and ``uid``, and
    ``event_message`` (a row whose message is NULL gets no event).
    """
    events = connection.ops.quote_name(Event._meta.db_table)
    sql = (
        f"INSERT INTO {events} ({_COLUMNS}) SELECT {_select(source, source + '.event_message')} "
        f"FROM {source} WHERE {source}.event_message IS NOT NULL"
    )
    return sql, [*spec.head(), spec.now, spec.now], ["namespace", "name", "uid", "event_message"]


def record_object_events(
    model: type[models.Model], spec: RowEvents, rows: Sequence[tuple[int, int, str]]
) -> int:
    """SQLite: record one event per ``(pk, version, message)`` about rows of ``model``.

    Only a row that holds ``version`` (the one its write stamped) gets its event: a row the
    write refused as stale gets none. (PostgreSQL records them in the write's own statement:
    ``events_insert``.)
    """
    if not rows:
        return 0
    events = connection.ops.quote_name(Event._meta.db_table)
    table = connection.ops.quote_name(model._meta.db_table)  # our tables
    stamp = connection.ops.adapt_datetimefield_value(spec.now)
    with connection.cursor() as cursor:
        # CROSS JOIN: SQLite keeps the JSON outermost and finds each row by its key.
        cursor.execute(
            f"INSERT INTO {events} ({_COLUMNS}) SELECT {_select('t', 'j.value ->> 2')} "
            f"FROM json_each(%s) AS j CROSS JOIN {table} AS t ON t.id = j.value ->> 0 "
            "WHERE t.resource_version = j.value ->> 1",
            [*spec.head(), stamp, stamp, json.dumps(list(rows))],
        )
        return int(cursor.rowcount)


def record_query_events(
    queryset: models.QuerySet[Any], spec: RowEvents, message: models.Expression
) -> int:
    """Record one event per row of ``queryset``, its message the SQL expression ``message``.

    One ``INSERT … SELECT`` over the queryset's own SQL, on SQLite and PostgreSQL alike:
    the simulated kubelet restarts thousands of containers in one tick, and their events
    must not cost a round trip each.
    """
    rows = queryset.annotate(event_message=message).values(
        "namespace", "name", "uid", "event_message"
    )
    select, params = rows.query.sql_with_params()
    events = connection.ops.quote_name(Event._meta.db_table)
    stamp = connection.ops.adapt_datetimefield_value(spec.now)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {events} ({_COLUMNS}) SELECT {_select('src', 'src.event_message')} "
            f"FROM ({select}) AS src",
            [*spec.head(), stamp, stamp, *params],
        )
        return int(cursor.rowcount)
