"""Set-based conditional writes: many rows, one statement, stale rows refused, watchers told.

``write_rows`` is the one way apply writes rows: every row carries the ``resource_version`` the
snapshot read, and only rows still at that version (and matching ``where``) are written. The new
version is the id of the row's change event, stamped in the same statement (``reserve_versions``),
so a row is written once, not once for the change and again for its version. On PostgreSQL the
change events are inserted by the same statement (a data-modifying CTE fed by the UPDATE's
``RETURNING``); SQLite records them after, from the rows that took.

PostgreSQL gets the rows as one array parameter per column (``UPDATE … FROM unnest(…)``): no
per-row placeholders for the driver to splice and no per-row round trips. SQLite gets them as one
JSON parameter (``UPDATE … FROM json_each(?)``), so the variable limit never applies.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection, models

from scheduler.cache.events import RowEvents, events_insert, record_object_events
from volcano_site.kube.changes import (
    notify_on_commit,
    record_versions,
    reserve_versions,
    versions_insert,
)
from volcano_site.pg_arrays import int_array, text_array

__all__ = ["Column", "keyed_rows", "write_rows"]

CHUNK = 5000
Column = tuple[str, str]  # (column, PostgreSQL type: bigint, text, jsonb, timestamptz, …)


def keyed_rows(
    table: str, ids: Sequence[int], columns: str, where: str = ""
) -> tuple[str, list[Any]]:
    """Return ``(sql, params)`` selecting ``columns`` of the rows of ``table`` (alias ``t``) in ``ids``.

    The ids are one parameter driving a join by primary key (PostgreSQL: ``unnest``; SQLite:
    ``json_each`` held outermost by ``CROSS JOIN``): an ``= ANY(<50,000 ids>)`` filter gets
    planned as a scan that searches the array once per row, seconds instead of milliseconds.
    """
    extra = f" WHERE {where}" if where else ""
    params: list[Any]
    if connection.vendor == "postgresql":
        source, join, key = "unnest(%s::bigint[]) AS k(id)", "JOIN", "k.id"
        params = [int_array(ids)]
    else:
        source, join, key = "json_each(%s) AS k", "CROSS JOIN", "k.value"
        params = [json.dumps(list(ids))]
    return f"SELECT {columns} FROM {source} {join} {table} AS t ON t.id = {key}{extra}", params


def write_rows(
    model: type[models.Model],
    columns: Sequence[Column],
    rows: Sequence[tuple[Any, ...]],
    *,
    where: str = "",
    events: RowEvents | None = None,
) -> list[int]:
    """Write ``rows`` of ``(pk, version, *values)``; return the pks written.

    A row whose ``resource_version`` is no longer ``version`` (or that fails ``where``, SQL
    over the table's columns) is left alone. Each written row gets a change event. With
    ``events``, each row ends with one more item, the message of the Kubernetes Event its
    write records (``None``: none), and only rows written get theirs.
    """
    if not rows:
        return []
    messages: dict[int, str] = {}
    if events is not None and connection.vendor != "postgresql":
        messages = {row[0]: row[-1] for row in rows if row[-1] is not None}
        rows = [row[:-1] for row in rows]
    # In key order: each row's B-tree page (and its neighbours') is then written while it is
    # still in the page cache. 10,000 binds in the engine's order cost SQLite 2-2.5x as much.
    rows = sorted(rows, key=_first)
    versions = reserve_versions(len(rows))
    table = connection.ops.quote_name(model._meta.db_table)  # our tables
    written: list[int] = []
    stamped = [(r[0], r[1], v, *r[2:]) for r, v in zip(rows, versions, strict=True)]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            inserts = [versions_insert(model, "w")]
            if events is not None:
                inserts.append(events_insert(events, "w"))
            needed = dict.fromkeys(column for _, _, names in inserts for column in names)
            returning = ", ".join(
                "v.event_message" if column == "event_message" else f"t.{column}"
                for column in needed
            )
            ctes = "".join(f", c{i} AS ({sql})" for i, (sql, _, _) in enumerate(inserts))
            for start in range(0, len(stamped), CHUNK):
                chunk = stamped[start : start + CHUNK]
                sql, params = _statement(table, columns, chunk, where, returning, events)
                cursor.execute(
                    f"WITH w AS ({sql}){ctes} SELECT w.id FROM w",
                    [*params, *(param for _, values, _ in inserts for param in values)],
                )
                written.extend(row[0] for row in cursor.fetchall())
            notify_on_commit()
            return written
        rows_written = _sqlite_write(cursor, table, columns, stamped, where, versions)
    record_versions(model, rows_written)
    if events is not None:
        record_object_events(
            model, events, [(pk, messages[pk]) for pk, _ in rows_written if pk in messages]
        )
    return [row[0] for row in rows_written]


def _first(row: tuple[Any, ...]) -> Any:
    return row[0]


def _statement(
    table: str,
    columns: Sequence[Column],
    rows: list[tuple[Any, ...]],
    where: str,
    returning: str = "t.id, t.resource_version",
    events: RowEvents | None = None,
) -> tuple[str, list[Any]]:
    """PostgreSQL: ``UPDATE … FROM unnest(<one array per column>) … RETURNING``.

    A column with one value for every row (a status, a shared condition) is sent once, as a
    scalar. The others travel as one array literal each (``pg_arrays``): bigint and text
    columns as built here, other types (a timestamp that differs per row) as lists. With
    ``events``, each row's last item rides along as ``v.event_message`` (not written).
    """
    values = [[row[i] for row in rows] for i in range(3 + len(columns))]
    sets: list[str] = []
    scalars: list[Any] = []
    arrays: list[Any] = [int_array(column) for column in values[:3]]
    names: list[str] = ["id", "version", "new_version"]
    types: list[str] = ["bigint"] * 3
    for (name, kind), column in zip(columns, values[3:], strict=True):
        if len(set(column)) == 1:
            sets.append(f"{name} = CAST(%s AS {kind})")
            scalars.append(column[0])
            continue
        sets.append(
            f"{name} = CAST(v.{name} AS jsonb)" if kind == "jsonb" else f"{name} = v.{name}"
        )
        names.append(name)
        types.append("text" if kind == "jsonb" else kind)
        if kind == "bigint":
            arrays.append(int_array(column))
        elif kind in ("text", "jsonb"):
            arrays.append(text_array(column))
        else:
            arrays.append(column)
    if events is not None:
        names.append("event_message")
        types.append("text")
        arrays.append(text_array(row[-1] for row in rows))
    unnest = ", ".join(f"%s::{kind}[]" for kind in types)
    extra = f" AND ({where})" if where else ""
    sql = (
        f"UPDATE {table} AS t SET {', '.join(sets)}, resource_version = v.new_version "
        f"FROM unnest({unnest}) AS v({', '.join(names)}) "
        f"WHERE t.id = v.id AND t.resource_version = v.version{extra} "
        f"RETURNING {returning}"
    )
    return sql, [*scalars, *arrays]


def _sqlite_write(
    cursor: Any,
    table: str,
    columns: Sequence[Column],
    rows: list[tuple[Any, ...]],
    where: str,
    versions: list[int],
) -> list[tuple[int, int]]:
    """SQLite: one prepared UPDATE run in-process per row, then read back what took.

    (``UPDATE … FROM json_each`` lets the planner drive the join from an index on the table,
    scanning the JSON once per row.) The new versions are unique to this call, so the rows
    holding one of them are exactly the rows written.
    """
    sets = ", ".join(f"{name} = %s" for name, _ in columns)
    extra = f" AND ({where})" if where else ""
    # Only timestamp columns need adapting (per column, not per value: 10,000 binds carry
    # 90,000 values).
    stamps = [i for i, (_, kind) in enumerate(columns, start=3) if kind == "timestamptz"]
    if stamps:
        rows = [tuple(_sqlite(x) if i in stamps else x for i, x in enumerate(row)) for row in rows]
    cursor.executemany(
        f"UPDATE {table} AS t SET {sets}, resource_version = %s "
        f"WHERE t.id = %s AND t.resource_version = %s{extra}",
        [(*row[3:], row[2], row[0], row[1]) for row in rows],
    )
    cursor.execute(
        f"SELECT id, resource_version FROM {table} "
        "WHERE id IN (SELECT value FROM json_each(%s)) AND resource_version BETWEEN %s AND %s",
        [json.dumps([row[0] for row in rows]), versions[0], versions[-1]],
    )
    return list(cursor.fetchall())


def _sqlite(value: Any) -> Any:
    if isinstance(value, datetime):
        return connection.ops.adapt_datetimefield_value(value)
    return value
