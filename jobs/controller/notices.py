"""Which jobs a pass must look at: those whose objects changed since the last pass.

Volcano's job controller is told of changes by its informers (a job's, a pod's or a PodGroup's
update queues the job's key) and reconciles only those. Here the change stream
(``kube.changes``: one ``ChangeEvent`` per write of a served object, in commit order) is the
informer: a pass reads the events after the last one the previous pass saw, of the kinds the
controller owns or watches (``jobs.job``, ``core.pod``, ``queues.podgroup``), and turns each into
its job: a Job's event names the job itself, a pod's or a PodGroup's names its ``job`` (read
from the row, or, for a row deleted since, from the owner reference its last state kept).

The stream can not say what happened when it is not continuous with what the last pass saw:
the process is new, the events after the mark were pruned (``prune_changes``), or the database
is another one (restored, or a test's rolled-back one). ``Notices.read`` then answers ``None``
and the caller runs a full pass, as an informer relists after its watch expired.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Max

from core.models import Pod
from jobs.models import Job
from kube.changes import model_label
from kube.models import ChangeEvent, ChangeType
from queues.models import PodGroup

__all__ = ["Mark", "Notices"]

_CHUNK = 5000  # keys per lookup query

JOB, POD, GROUP = model_label(Job), model_label(Pod), model_label(PodGroup)


@dataclass(frozen=True, slots=True)
class Mark:
    """The newest event a pass saw, named well enough to know it again in the same stream."""

    id: int
    kind: str = ""
    object_pk: int = 0
    created_at: object = None


def _mark_at(event_id: int) -> Mark | None:
    """Return the mark of event ``event_id`` as stored now (None if there is no such event)."""
    if event_id == 0:
        return Mark(0)
    row = (
        ChangeEvent.objects.filter(pk=event_id)
        .order_by()
        .values_list("kind", "object_pk", "created_at")
        .first()
    )
    return None if row is None else Mark(event_id, *row)


def _head() -> int:
    found = ChangeEvent.objects.order_by().aggregate(top=Max("id"))["top"]
    return int(found or 0)


class Notices:
    """The controller's place in the change stream (one per process)."""

    def __init__(self) -> None:
        self.mark: Mark | None = None

    def forget(self) -> None:
        """Start over: the next ``read`` answers None (a full pass), as a new process would."""
        self.mark = None

    def read(self) -> tuple[set[int] | None, Mark | None]:
        """Return the jobs whose objects changed since the last ``advance`` and the new mark.

        The jobs are None when the stream is not continuous with the last mark (see the module
        doc): every job must then be looked at. The mark is the newest event now (None if it
        could not be read); the caller calls ``advance(mark)`` once its pass is done, so a pass
        that fails part-way reads the same events again, and the writes made during a pass are
        read by the next one.
        """
        head = _head()
        mark = _mark_at(head)
        last = self.mark
        if mark is None or last is None or last.id > head or _mark_at(last.id) != last:
            return None, mark
        events = (
            ChangeEvent.objects.filter(kind__in=(JOB, POD, GROUP), id__gt=last.id, id__lte=head)
            .order_by()
            .values_list("kind", "type", "object_pk", "namespace", "name", "last_state")
        )
        jobs: set[int] = set()
        pods: set[int] = set()
        groups: set[int] = set()
        owners: set[tuple[str, str]] = set()  # (namespace, job name) of deleted pods and groups
        named: dict[str, set[tuple[str, str]]] = {POD: set(), GROUP: set()}
        for kind, change, pk, namespace, name, state in events.iterator(chunk_size=2000):
            if kind == JOB and pk:
                jobs.add(pk)
            elif kind == JOB:  # saved for the first time: recorded before it had a key
                owners.add((namespace, name))
            elif change == ChangeType.DELETED:
                owners.update((namespace, job) for job in _owner_jobs(state))
            elif pk:
                (pods if kind == POD else groups).add(pk)
            else:
                named[kind].add((namespace, name))
        jobs.update(_jobs_of(Pod, pods))
        jobs.update(_jobs_of(PodGroup, groups))
        jobs.update(_jobs_named(owners))
        jobs.update(_jobs_of_named(Pod, named[POD]))
        jobs.update(_jobs_of_named(PodGroup, named[GROUP]))
        return jobs, mark

    def advance(self, mark: Mark) -> None:
        """Remember ``mark`` as seen: the next ``read`` starts after it."""
        self.mark = mark


def _owner_jobs(state: Any) -> list[str]:
    """Return the names of the Jobs a deleted object's last manifest says own it."""
    if not isinstance(state, dict):
        return []
    meta = state.get("metadata") or {}
    names = [
        str(ref.get("name"))
        for ref in meta.get("ownerReferences") or ()
        if isinstance(ref, dict) and ref.get("kind") == "Job" and ref.get("name")
    ]
    label = (meta.get("labels") or {}).get("volcano.sh/job-name")
    if label and label not in names:
        names.append(str(label))
    return names


def _jobs_of(model: type[Pod] | type[PodGroup], pks: Iterable[int]) -> set[int]:
    """Return the jobs of the rows ``pks`` of ``model`` (those still there)."""
    keys = sorted(pks)
    found: set[int] = set()
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        rows = model.objects.filter(pk__in=chunk, job__isnull=False).order_by()
        found.update(rows.values_list("job_id", flat=True))
    return found


def _jobs_named(keys: set[tuple[str, str]]) -> set[int]:
    """Return the pks of the jobs named ``(namespace, name)`` in ``keys``."""
    if not keys:
        return set()
    names = {name for _, name in keys}
    rows = Job.objects.filter(name__in=names).order_by().values_list("pk", "namespace", "name")
    return {pk for pk, namespace, name in rows if (namespace, name) in keys}


def _jobs_of_named(model: type[Pod] | type[PodGroup], keys: set[tuple[str, str]]) -> set[int]:
    """Return the jobs of the rows of ``model`` named ``(namespace, name)`` in ``keys``."""
    found: set[int] = set()
    names = sorted({name for _, name in keys})
    for start in range(0, len(names), _CHUNK):
        rows = model.objects.filter(name__in=names[start : start + _CHUNK], job__isnull=False)
        for job, namespace, name in rows.order_by().values_list("job_id", "namespace", "name"):
            if (namespace, name) in keys:
                found.add(job)
    return found
