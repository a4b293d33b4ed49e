"""The events plugins record on PodGroups (``Decisions.pod_group_events``) → Event rows.

Volcano's counterpart: ``Session.RecordPodGroupEvent``, which hands the event to the cache's
recorder (client-go's ``EventRecorder``) against the PodGroup. resourcequota records ``Normal
Unschedulable "resource quota insufficient, ..."`` on a job that enqueue leaves Pending: the only
place Volcano says which quota held the job back (``kubectl describe podgroup`` shows it).

The same plugin records the same event every session while the job waits; client-go's event
correlator folds such repeats into one event whose ``count`` and ``lastTimestamp`` move, and so
does this writer (as ``core.events.record_event`` does for the controllers), in three
statements however many PodGroups the session names.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from core.models import Event
from core.row_events import SCHEDULER
from queues.models import PodGroup
from scheduler.cache.snapshot import Snapshot
from scheduler.engine.framework.decisions import Decisions

__all__ = ["write_pod_group_events"]

_KIND = "PodGroup"


def write_pod_group_events(snapshot: Snapshot, decisions: Decisions, now: datetime) -> int:
    """Record the session's PodGroup events; return how many were recorded or counted again."""
    if not decisions.pod_group_events:
        return 0
    pks = {
        snapshot.pod_groups[uid][0]: uid
        for uid in decisions.pod_group_events
        if uid in snapshot.pod_groups
    }
    groups = {
        pks[pk]: (ns, name, uid)
        for pk, ns, name, uid in PodGroup.objects.filter(pk__in=pks).values_list(
            "pk", "namespace", "name", "uid"
        )
    }
    if not groups:
        return 0
    # Each (group, type, reason, message) once: a plugin repeating itself in one session
    # records one event, as the correlator would fold it.
    wanted: dict[tuple[str, str, str, str, str], Any] = {}
    for uid, events in decisions.pod_group_events.items():
        group = groups.get(uid)
        if group is None:  # deleted since the snapshot
            continue
        ns, name, object_uid = group
        for event in events:
            wanted.setdefault((ns, name, event.type, event.reason, event.message), object_uid)
    existing: dict[tuple[str, str, str, str, str], Event] = {}
    for row in Event.objects.filter(
        involved_kind=_KIND,
        involved_name__in={key[1] for key in wanted},
        reason__in={key[3] for key in wanted},
    ).order_by("last_timestamp"):
        key = (row.involved_namespace, row.involved_name, row.type, row.reason, row.message)
        if key in wanted and row.involved_uid == wanted[key]:
            existing[key] = row  # the latest wins (ordered by last_timestamp)
    repeated = list(existing.values())
    for row in repeated:
        row.count += 1
        row.last_timestamp = now
    Event.objects.bulk_update(repeated, ["count", "last_timestamp"])
    suffix = f".{int(now.timestamp() * 1e6):x}"
    Event.objects.bulk_create(
        Event(
            namespace=ns or "default",
            name=f"{name}{suffix}"[:253],
            involved_kind=_KIND,
            involved_namespace=ns,
            involved_name=name,
            involved_uid=object_uid,
            type=event_type,
            reason=reason,
            message=message,
            source=SCHEDULER,
            first_timestamp=now,
            last_timestamp=now,
        )
        for (ns, name, event_type, reason, message), object_uid in wanted.items()
        if (ns, name, event_type, reason, message) not in existing
    )
    return len(wanted)
