"""Write the change stream (one ``ChangeEvent`` per object write) and read it back for watches.

Receivers on ``pre_save``/``pre_delete`` of every served model insert the event
inside the writer's own transaction, and the stored object takes the event's id
as its ``resourceVersion`` (global and increasing, like etcd's revision). Code
that writes rows without ``save()`` (``QuerySet.update``, ``bulk_update``) must
call ``record_changes`` itself, or watchers will not hear of those writes.

The readers' contract (watches, the scheduler's row cache, the controllers' notices): ids
become visible in id order. A reader that saw id N never later sees an id below N appear,
so "everything after N" is a complete cursor; an id may be missing for good (a gap: a
rolled-back writer, a reserved id whose row was refused), never late. How it holds: on
PostgreSQL, ids are handed out before commit, so two writers could commit out of order;
every taker of ids (``_insert``, ``record_rows``, ``reserve_versions``) first takes a
transaction-scoped advisory lock (``serialise_writers``), held until commit, so writers of
served objects commit in id order. SQLite already serialises writers. Anything that hands
out ids another way must keep this contract or make every reader gap-aware.

How long the lock is held is what serialises the API's writes, so a create through the API
(``kube.store.object_create``) takes it last: inside ``versions_at_end`` the new object's
ADDED event is queued, the row inserted with a placeholder version, and at the block's end,
just before commit, the lock is taken, the event inserted and the row stamped with its id
(``kube.lock_order`` lets those inserts by without the lock: rows no other transaction can
see yet cannot be waited for, so taking the lock after them cannot deadlock).

Served models are the registry's (each app registers its kinds). The receivers are connected
per model, as each kind is registered (``registry.add_kind_listener``), rather than once for
every sender: a ``pre_delete`` receiver for every model would make each model "listened to",
and Django's deletion collector then gives up its fast path for all of them
(``Collector.can_fast_delete``), so pruning 100,000 change events or old history samples would
load and signal every row. Each receiver still checks that its sender is served, so a kind
withdrawn (``registry.unregister_kind``) is no longer recorded.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection, models, transaction
from django.db.models.signals import post_save, pre_delete, pre_save
from django.utils import timezone

from kube import registry
from kube.models import ChangeEvent, ChangeType
from kube.pg_arrays import int_array
from kube.registry import Entry

__all__ = [
    "WAKE",
    "add_commit_listener",
    "announce_on_commit",
    "connect",
    "deferring_creates",
    "latest_resource_version",
    "model_label",
    "notify_on_commit",
    "prune_changes",
    "record_changes",
    "record_rows",
    "record_versions",
    "reserve_versions",
    "serialise_writers",
    "served_models",
    "versions_at_end",
    "versions_block",
    "versions_insert",
]

_ADVISORY_LOCK_KEY = 0x766F6C63  # "volc"
_SQL_CHUNK = 5000  # rows per statement on PostgreSQL (one array parameter)
# Watchers in this process wait on it; writers notify after commit (others poll).
WAKE = threading.Condition()
# Called after each commit that wrote served objects, with the topics written
# (``"<model label>@<namespace>"``; ``@*`` when a set-based write's namespaces are unknown)
# and the free topics announced in it (``console.audit``, ``scheduler.session``).
# The console publishes them on the channel layer (``console.live``).
_listeners: list[Callable[[frozenset[str]], None]] = []
_touched = threading.local()
# Objects created inside ``versions_at_end`` that wait for their event and version.
_late = threading.local()


def add_commit_listener(listener: Callable[[frozenset[str]], None]) -> None:
    """Call ``listener`` after every commit that wrote served objects, with the topics written.

    Why a hook here: every write of a served object passes through this module (it hands out
    the resourceVersions), so one hook hears writes from every process and code path without
    each service remembering to broadcast. The kernel stays free of the console: it only
    knows that someone listens.
    """
    if listener not in _listeners:
        _listeners.append(listener)


def _touch(kind: str, namespace: str) -> None:
    """Note that this thread's transaction wrote ``kind`` in ``namespace``; flush on commit.

    A rolled-back transaction leaves its topics behind for the next commit to send: a page
    then refreshes once for nothing, which is harmless, while keying the set by transaction
    would cost every write more than that.
    """
    if not _listeners:
        return
    pending: set[str] | None = getattr(_touched, "topics", None)
    if pending is None:
        pending = _touched.topics = set()
    pending.add(f"{kind}@{namespace}")
    transaction.on_commit(_flush_touched)


def announce_on_commit(*topics: str) -> None:
    """Tell the commit listeners of free ``topics`` once this transaction commits.

    For what changed outside the change stream (an audit entry, a recorded session): a free
    topic has no ``@`` (``console.audit``). They go with this transaction's own commit, or
    never if it rolls back; outside a transaction, at once.
    """
    if not _listeners or not topics:
        return
    names = frozenset(topics)
    transaction.on_commit(lambda: _tell(names))


def _flush_touched() -> None:
    topics: set[str] | None = getattr(_touched, "topics", None)
    if not topics:
        return
    _touched.topics = None
    _tell(frozenset(topics))


def _tell(topics: frozenset[str]) -> None:
    for listener in _listeners:
        listener(topics)


def model_label(model: type[models.Model]) -> str:
    """Return the stream's name for ``model`` (``jobs.job``)."""
    return model._meta.label_lower


def served_models() -> list[type[models.Model]]:
    """Return every model a watch can be opened on (each served kind's, from the registry).

    Secrets too: a DELETED event keeps the Secret's last state (its data) like any other
    kind's, and only a reader of Secrets may open their watch (the ``secrets`` access rule).
    """
    return registry.served_models()


def serialise_writers() -> None:
    """Take the writers' lock (PostgreSQL), held until the transaction ends.

    Why: change events and versions are then handed out, and committed, in one order.
    """
    if connection.vendor != "postgresql":
        return
    blocks = connection.atomic_blocks if connection.in_atomic_block else []
    outermost = blocks[0] if blocks else None
    # The transaction holds it already (taken here or by ``lock_order``'s wrapper, which keeps
    # the same mark): asking again was one more round trip per change event.
    if outermost is not None and getattr(connection, "_volcano_writers_lock", None) is outermost:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_ADVISORY_LOCK_KEY])
    if outermost is not None:
        connection._volcano_writers_lock = outermost  # type: ignore[attr-defined]


def _notify() -> None:
    with WAKE:
        WAKE.notify_all()


def _insert(instance: Any, kind: str, change: ChangeType, *, last_state: Any = None) -> int:
    if not connection.in_atomic_block:
        # The writers' lock lasts as long as the transaction: outside one it would end before
        # the event is inserted, and an event could commit ahead of a lower id still unseen.
        with transaction.atomic():
            return _insert(instance, kind, change, last_state=last_state)
    serialise_writers()
    namespace = getattr(instance, "namespace", "") or ""
    _touch(kind, namespace)
    event = ChangeEvent.objects.create(
        kind=kind,
        type=change,
        namespace=namespace,
        name=getattr(instance, "name", "") or "",
        object_pk=instance.pk or 0,
        last_state=last_state,
    )
    transaction.on_commit(_notify)
    return event.id


def _on_pre_save(sender: type[models.Model], instance: Any, raw: bool, **kwargs: Any) -> None:
    if raw or not hasattr(instance, "resource_version") or registry.entry_for_model(sender) is None:
        return
    queue: list[Any] | None = getattr(_late, "queue", None)
    if queue is not None:
        if instance._state.adding:
            queue.append(instance)  # its ADDED event and version at the block's end
            return
        if _queued(queue, instance) is not None:
            return  # created in this block: the ADDED event at its end shows this state
    change = ChangeType.ADDED if instance._state.adding else ChangeType.MODIFIED
    instance.resource_version = _insert(instance, model_label(sender), change)


def _queued(queue: list[Any], instance: Any) -> int | None:
    """Return where ``instance``'s row waits in ``queue`` (created in this block), if it does."""
    for index, queued in enumerate(queue):
        if type(queued) is type(instance) and queued.pk is not None and queued.pk == instance.pk:
            return index
    return None


def deferring_creates() -> bool:
    """Return whether this thread is inside ``versions_at_end`` (``kube.lock_order`` asks)."""
    return getattr(_late, "queue", None) is not None


@contextmanager
def versions_at_end() -> Iterator[None]:
    """Give the objects created in the block their ADDED events and versions at its end.

    Use it as the last thing inside the outermost ``transaction.atomic()`` of a write, so the
    writers' lock is taken just before commit: the lock is then held for two statements and
    the commit, instead of from the first insert through every later statement of the
    transaction (children, audit entries). Updates and deletes inside the block take the lock
    as before (their rows may be waited for by a writer that holds it). Readers see no
    difference: the ids still commit in order (the module's docstring).
    """
    if getattr(_late, "queue", None) is not None:  # nested: the outermost block stamps
        yield
        return
    queue: list[Any] = []
    _late.queue = queue
    try:
        yield
    finally:
        _late.queue = None
    for instance in queue:  # only when the block succeeded
        if connection.vendor == "postgresql":
            instance.resource_version = _stamp_added(instance)
            continue
        version = _insert(instance, model_label(type(instance)), ChangeType.ADDED)
        type(instance)._default_manager.filter(pk=instance.pk).update(resource_version=version)
        instance.resource_version = version


def _stamp_added(instance: Any) -> int:
    """PostgreSQL: take the writers' lock, record ``instance``'s ADDED event, stamp its row.

    One statement: under load every round trip between Python and the database also waits for
    the GIL, and each such wait inside the lock holds up every other writer. The lock is taken
    in the first CTE, before the INSERT's row (and its ``nextval``) is made from it.
    """
    model = type(instance)
    kind = model_label(model)
    namespace = getattr(instance, "namespace", "") or ""
    _touch(kind, namespace)
    blocks = connection.atomic_blocks if connection.in_atomic_block else []
    if blocks:  # held from here to commit: lock_order's wrapper need not ask for it first
        connection._volcano_writers_lock = blocks[0]  # type: ignore[attr-defined]
    events = connection.ops.quote_name(ChangeEvent._meta.db_table)
    table = connection.ops.quote_name(model._meta.db_table)  # our tables
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH l AS (SELECT pg_advisory_xact_lock(%s)), ev AS ("
            f"INSERT INTO {events} (kind, type, namespace, name, object_pk, created_at) "
            f"SELECT %s, %s, %s, %s, %s, now() FROM l RETURNING id) "
            f"UPDATE {table} AS t SET resource_version = ev.id FROM ev WHERE t.id = %s "
            "RETURNING ev.id",
            [
                _ADVISORY_LOCK_KEY,
                kind,
                str(ChangeType.ADDED),
                namespace,
                getattr(instance, "name", "") or "",
                instance.pk,
                instance.pk,
            ],
        )
        version = int(cursor.fetchone()[0])
    transaction.on_commit(_notify)
    return version


def _on_post_save(
    sender: type[models.Model], instance: Any, created: bool, raw: bool, **kwargs: Any
) -> None:
    # Rows without a resourceVersion of their own (Events) are recorded once they have a pk.
    if raw or hasattr(instance, "resource_version") or registry.entry_for_model(sender) is None:
        return
    change = ChangeType.ADDED if created else ChangeType.MODIFIED
    _insert(instance, model_label(sender), change)


def _on_pre_delete(sender: type[models.Model], instance: Any, **kwargs: Any) -> None:
    entry = registry.entry_for_model(sender)
    if entry is None:
        return
    queue: list[Any] | None = getattr(_late, "queue", None)
    if queue is not None and (index := _queued(queue, instance)) is not None:
        del queue[index]  # created and deleted in one block: nobody ever saw it
        return
    # The manifest a DELETED event shows: the serving kind's, Secrets' included.
    last_state = entry.resource.manifest.dump(instance, None)
    _insert(instance, model_label(sender), ChangeType.DELETED, last_state=last_state)


def _connect_model(entry: Entry) -> None:
    model = entry.model
    uid = model_label(model)
    pre_save.connect(_on_pre_save, sender=model, dispatch_uid=f"kube-pre-save-{uid}")
    post_save.connect(_on_post_save, sender=model, dispatch_uid=f"kube-post-save-{uid}")
    pre_delete.connect(_on_pre_delete, sender=model, dispatch_uid=f"kube-delete-{uid}")


def connect() -> None:
    """Connect the receivers to each served model, now and as kinds are registered."""
    registry.add_kind_listener("kube.changes", _connect_model)


def record_changes(instances: Iterable[Any], change: ChangeType = ChangeType.MODIFIED) -> None:
    """Record writes made without ``save()`` (``bulk_update``) and give the rows new versions.

    Call it inside the transaction that wrote ``instances``.
    """
    for instance in instances:
        version = _insert(instance, model_label(type(instance)), change)
        if hasattr(instance, "resource_version"):
            type(instance)._default_manager.filter(pk=instance.pk).update(resource_version=version)
            instance.resource_version = version


def record_rows(
    model: type[models.Model], pks: Iterable[int], change: ChangeType = ChangeType.MODIFIED
) -> None:
    """Record rows written by ``QuerySet.update`` or raw SQL, by primary key.

    Each row gets one change event and that event's id as its ``resourceVersion``; call it
    inside the writing transaction, after the write.
    """
    keys = sorted(set(pks))
    if not keys:
        return
    if not connection.in_atomic_block:  # the lock must last until the events commit (_insert)
        with transaction.atomic():
            record_rows(model, keys, change)
        return
    serialise_writers()
    kind = model_label(model)
    _touch(kind, "*" if _has_field(model, "namespace") else "")
    if connection.vendor == "postgresql":
        _record_rows_in_sql(model, keys, kind, change)
    else:
        _record_rows_in_sqlite(model, keys, kind, change)
    transaction.on_commit(_notify)


def reserve_versions(count: int) -> list[int]:
    """Take ``count`` change-event ids for rows the caller is about to write itself.

    For set-based writers that stamp ``resource_version`` in the same statement that changes
    the row (one write per row instead of two); pair with ``record_versions``. Call it inside
    the writing transaction: PostgreSQL hands the ids out from the events' sequence under the
    writers' lock, SQLite's IMMEDIATE transaction already holds the one write lock. An id that
    ends up unused (its row was refused as stale) is a gap in the stream, which watchers skip.

    On PostgreSQL the ids are one block: the next id, and the sequence moved past the rest in
    the same statement (50,000 ``nextval`` calls cost 0.2 s). That is safe because every taker
    of the sequence (``_insert``, ``record_rows`` and this) holds the writers' lock.
    """
    if count <= 0:
        return []
    serialise_writers()
    table = ChangeEvent._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT setval(s.seq, nextval(s.seq) + %s - 1) "
                "FROM (SELECT pg_get_serial_sequence(%s, 'id') AS seq) s",
                [count, table],
            )
            last = int(cursor.fetchone()[0])
            return list(range(last - count + 1, last + 1))
        cursor.execute(
            "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = %s), 0), "
            f"COALESCE((SELECT MAX(id) FROM {connection.ops.quote_name(table)}), 0))",
            [table],
        )
        last = int(cursor.fetchone()[0])
    return list(range(last + 1, last + 1 + count))


def versions_block(count: int) -> tuple[str, list[Any]]:
    """PostgreSQL: ``(sql, params)`` of a one-row query taking ``count`` ids, as ``first``.

    ``reserve_versions`` inside a statement, for writers that cannot wait for its answer (a
    pipeline): the ids are ``first`` to ``first + count - 1``. The transaction must hold the
    writers' lock before the statement runs (``serialise_writers``).
    """
    table = ChangeEvent._meta.db_table
    return (
        "SELECT setval(s.seq, nextval(s.seq) + %s - 1) - %s + 1 AS first "
        "FROM (SELECT pg_get_serial_sequence(%s, 'id') AS seq) s",
        [count, count, table],
    )


def record_versions(
    model: type[models.Model],
    rows: Iterable[tuple[int, int]],
    change: ChangeType = ChangeType.MODIFIED,
) -> None:
    """Record rows already stamped with ids from ``reserve_versions``.

    ``rows`` are ``(pk, version)`` of the rows the caller stamped; each row that holds its
    version becomes the change event whose id is that version, named from the row itself (only
    numbers travel: no per-row text for the driver to quote). A row not at its version was not
    written (refused as stale) and gets no event, so a writer need not read back what took
    before recording it.
    """
    written = list(rows)
    if not written:
        return
    kind = model_label(model)
    _touch(kind, "*" if _has_field(model, "namespace") else "")
    events = connection.ops.quote_name(ChangeEvent._meta.db_table)
    table = connection.ops.quote_name(model._meta.db_table)  # our tables
    namespace = "t.namespace" if _has_field(model, "namespace") else "''"
    insert = f"INSERT INTO {events} (id, kind, type, namespace, name, object_pk, created_at) "
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for start in range(0, len(written), _SQL_CHUNK):
                chunk = written[start : start + _SQL_CHUNK]
                cursor.execute(
                    f"{insert} SELECT v.version, %s, %s, {namespace}, t.name, t.id, now() "
                    f"FROM unnest(%s::bigint[], %s::bigint[]) AS v(id, version) "
                    f"JOIN {table} AS t ON t.id = v.id AND t.resource_version = v.version",
                    [
                        kind,
                        str(change),
                        int_array(r[0] for r in chunk),
                        int_array(r[1] for r in chunk),
                    ],
                )
        else:
            # CROSS JOIN: SQLite keeps the JSON outermost and finds each row by its key.
            cursor.execute(
                f"{insert} SELECT j.value ->> 1, %s, %s, {namespace}, t.name, t.id, %s "
                f"FROM json_each(%s) AS j CROSS JOIN {table} AS t ON t.id = j.value ->> 0 "
                "WHERE t.resource_version = j.value ->> 1",
                [
                    kind,
                    str(change),
                    connection.ops.adapt_datetimefield_value(timezone.now()),
                    json.dumps(written),
                ],
            )
    transaction.on_commit(_notify)


def versions_insert(
    model: type[models.Model], source: str, change: ChangeType = ChangeType.MODIFIED
) -> tuple[str, list[Any], list[str]]:
    """PostgreSQL: return ``(sql, params, columns)`` recording the rows of ``source``.

    The same events as ``record_versions``, from ``source``: a CTE of the rows just written,
    which must have ``columns`` (``id``, ``resource_version`` from ``reserve_versions``,
    ``name`` and, if the model has one, ``namespace``). Why: the writer's ``UPDATE …
    RETURNING`` feeds the insert in the same statement (``WITH w AS (UPDATE …), c AS (<this>)
    …``), so the written ids neither travel to Python and back nor get looked up again by key.
    The caller's transaction must call ``notify_on_commit``.
    """
    columns = ["id", "resource_version", "name"]
    namespace = "''"
    if _has_field(model, "namespace"):
        columns.append("namespace")
        namespace = f"{source}.namespace"
    events = connection.ops.quote_name(ChangeEvent._meta.db_table)
    sql = (
        f"INSERT INTO {events} (id, kind, type, namespace, name, object_pk, created_at) "
        f"SELECT {source}.resource_version, %s, %s, {namespace}, {source}.name, {source}.id, "
        f"now() FROM {source}"
    )
    return sql, [model_label(model), str(change)], columns


def notify_on_commit(*written: type[models.Model]) -> None:
    """Wake this process's watchers once the writing transaction commits.

    ``written``: the models the transaction wrote through ``versions_insert`` (their topics
    go to the console's live pages with the other writes).
    """
    for model in written:
        _touch(model_label(model), "*" if _has_field(model, "namespace") else "")
    transaction.on_commit(_notify)


def _record_rows_in_sql(
    model: type[models.Model], keys: list[int], kind: str, change: ChangeType
) -> None:
    """PostgreSQL: insert the events and stamp the versions in one statement per chunk.

    The events are made from the rows themselves (``INSERT … SELECT … RETURNING`` feeding an
    ``UPDATE … FROM``), so no row travels to Python and back: the 50,000 binds of a large
    session cost a handful of statements instead of minutes of round trips.
    """
    events = connection.ops.quote_name(ChangeEvent._meta.db_table)
    table = connection.ops.quote_name(model._meta.db_table)  # our tables
    namespace = "namespace" if _has_field(model, "namespace") else "''"
    stamp = _has_field(model, "resource_version")
    insert = (
        f"INSERT INTO {events} (kind, type, namespace, name, object_pk, created_at) "
        f"SELECT %s, %s, {namespace}, name, id, now() FROM {table} "
        "WHERE id = ANY(%s::bigint[]) ORDER BY id RETURNING id, object_pk"
    )
    with connection.cursor() as cursor:
        for start in range(0, len(keys), _SQL_CHUNK):
            chunk = int_array(keys[start : start + _SQL_CHUNK])
            if stamp:
                cursor.execute(
                    f"WITH ev AS ({insert}) UPDATE {table} AS t SET resource_version = ev.id "
                    "FROM ev WHERE t.id = ev.object_pk",
                    [kind, str(change), chunk],
                )
            else:
                cursor.execute(insert, [kind, str(change), chunk])


def _record_rows_in_sqlite(
    model: type[models.Model], keys: list[int], kind: str, change: ChangeType
) -> None:
    """SQLite: one ``INSERT … SELECT`` for the events, one ``UPDATE … FROM`` for the versions.

    The IMMEDIATE transaction holds the write lock, so the events this call inserts are exactly
    those after the newest id it saw first; the keys travel as one JSON parameter.
    """
    events = connection.ops.quote_name(ChangeEvent._meta.db_table)
    table = connection.ops.quote_name(model._meta.db_table)  # our tables
    namespace = "namespace" if _has_field(model, "namespace") else "''"
    stamp = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {events}")
        last = int(cursor.fetchone()[0])
        cursor.execute(
            f"INSERT INTO {events} (kind, type, namespace, name, object_pk, created_at) "
            f"SELECT %s, %s, {namespace}, name, id, %s FROM {table} "
            "WHERE id IN (SELECT value FROM json_each(%s)) ORDER BY id",
            [kind, str(change), stamp, json.dumps(keys)],
        )
        if _has_field(model, "resource_version"):
            cursor.execute(
                f"UPDATE {table} SET resource_version = e.id FROM {events} AS e "
                f"WHERE e.id > %s AND {table}.id = e.object_pk",
                [last],
            )


def _has_field(model: type[models.Model], name: str) -> bool:
    return any(f.name == name for f in model._meta.concrete_fields)


def prune_changes(*, keep_seconds: int = 900, keep_latest: int = 1) -> int:
    """Delete change events older than ``keep_seconds`` (the newest ``keep_latest`` stay).

    Watches from a version older than what remains get 410 Expired and relist, as
    Kubernetes clients do after etcd compaction. Return how many rows went.

    The cut is made by id: everything before the first event young enough to keep. Ids follow
    time (they are handed out in commit order under the writers' lock), and finding that first
    event walks the primary key from the oldest row, past only the rows about to go. An index on
    ``created_at`` would answer it too, but cost every write a second B-tree entry per event
    (20,000 in a session binding 10,000 one-pod jobs), for a query run once a minute.
    """
    cutoff = timezone.now() - dt.timedelta(seconds=keep_seconds)
    newest = list(ChangeEvent.objects.order_by("-id").values_list("id", flat=True)[:keep_latest])
    if not newest:
        return 0
    first_kept = min(newest)
    young = ChangeEvent.objects.filter(created_at__gte=cutoff, id__lt=first_kept).order_by("id")
    first_young = young.values_list("id", flat=True).first()
    if first_young is not None:
        first_kept = first_young
    deleted, _ = ChangeEvent.objects.filter(id__lt=first_kept).delete()
    return deleted


def latest_resource_version() -> int:
    """Return the id of the newest change event (0 when nothing was ever written)."""
    last = ChangeEvent.objects.order_by("-id").values_list("id", flat=True).first()
    return last or 0
