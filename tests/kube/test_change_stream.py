"""Writes made without ``save()`` reach the change stream, so watches (``kubectl get pods -w``)
hear of pods the controller creates, binds the scheduler writes and the kubelet's steps."""

from __future__ import annotations

import pytest
from django.db import transaction

from core.models import Pod
from kube.changes import latest_resource_version
from kube.models import ChangeEvent, ChangeType
from queues.models import PodGroup, Queue
from scheduler.cache.rows import write_rows
from tests.e2e.stack import Clock, apply_file, nodes

pytestmark = pytest.mark.django_db


def _changes(kind: str, since: int) -> list[tuple[str, str]]:
    return list(
        ChangeEvent.objects.filter(kind=kind, id__gt=since)
        .order_by("id")
        .values_list("type", "name")
    )


def test_pods_podgroups_and_queues_written_in_bulk_are_in_the_stream() -> None:
    nodes(2)
    apply_file("test.yaml")
    since = latest_resource_version()
    apply_file("nginx-sleep.yaml")
    clock = Clock()
    clock.run_until(lambda: Pod.objects.filter(job__name="job-1", phase="Running").exists())

    pod = Pod.objects.get(job__name="job-1")
    pod_changes = _changes("core.pod", since)
    assert pod_changes[0] == (ChangeType.ADDED, pod.name)  # the controller's bulk create
    assert len([c for c in pod_changes if c == (ChangeType.MODIFIED, pod.name)]) >= 2
    assert pod.resource_version == (
        ChangeEvent.objects.filter(kind="core.pod", name=pod.name).order_by("-id").first().id  # type: ignore[union-attr]
    )
    group = PodGroup.objects.get(job__name="job-1")
    assert (ChangeType.MODIFIED, group.name) in _changes("queues.podgroup", since)
    assert (ChangeType.MODIFIED, "test") in _changes("queues.queue", since)
    assert Queue.objects.get(name="test").resource_version > since


def test_rows_written_with_reserved_versions_are_followed_by_the_next_write() -> None:
    queues = [Queue.objects.create(name=f"q{i}") for i in range(3)]
    newest = latest_resource_version()

    with transaction.atomic():
        rows = [(q.pk, q.resource_version, 5) for q in queues]
        written = write_rows(Queue, [("weight", "bigint")], rows)
        Queue.objects.create(name="after")  # an ordinary write takes the next id

    assert sorted(written) == sorted(q.pk for q in queues)
    versions = list(Queue.objects.filter(pk__in=written).order_by("pk"))
    assert [q.resource_version for q in versions] == [newest + 1, newest + 2, newest + 3]
    assert all(q.weight == 5 for q in versions)
    assert ChangeEvent.objects.get(name="after", type=ChangeType.ADDED).id == newest + 4


def test_rows_written_in_bulk_get_one_event_each_and_a_stale_row_gets_none() -> None:
    groups = [PodGroup.objects.create(namespace="team-a", name=f"g{i}") for i in range(3)]
    stale = groups[2]
    since = latest_resource_version()

    with transaction.atomic():
        rows = [(g.pk, g.resource_version, "Inqueue") for g in groups[:2]]
        rows.append((stale.pk, stale.resource_version - 1, "Inqueue"))  # read before a write
        written = write_rows(PodGroup, [("phase", "text")], rows)

    assert sorted(written) == sorted(g.pk for g in groups[:2])
    events = set(
        ChangeEvent.objects.filter(id__gt=since).values_list(
            "id", "kind", "type", "namespace", "name", "object_pk"
        )
    )
    for group in groups[:2]:
        group.refresh_from_db()
        assert group.phase == "Inqueue"
        assert (group.resource_version, "queues.podgroup", ChangeType.MODIFIED, "team-a",
                group.name, group.pk) in events  # fmt: skip
    assert len(events) == 2
    stale.refresh_from_db()
    assert stale.phase == "Pending"
