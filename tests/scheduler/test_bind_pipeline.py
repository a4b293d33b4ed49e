"""Binds sent while the session runs: written as the plain write would, checked, undone whole."""

from __future__ import annotations

import os
from collections.abc import Callable

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from core.models import Event, Pod
from kube.models import ChangeEvent
from scheduler.cache import ApplyResult, BindPipeline, apply_decisions, read_snapshot
from scheduler.cache.snapshot import Snapshot
from scheduler.engine import load_conf, run_session
from scheduler.engine.framework.decisions import Decisions
from scheduler.models import SessionRecord
from scheduler.worker import run_once
from tests.scheduler.factories import TEST_CONF, make_gang, make_node, use_conf

POSTGRES = os.environ.get("DATABASE_URL", "").startswith("postgres")
needs_postgres = pytest.mark.skipif(
    not POSTGRES, reason="pipeline mode: needs DATABASE_URL pointing at PostgreSQL"
)
pytestmark = pytest.mark.django_db


def pipelined(
    snapshot: Snapshot,
    *,
    batch: int = 2,
    write: Callable[[Snapshot, Decisions, int | None], ApplyResult] | None = None,
) -> tuple[BindPipeline, Decisions, ApplyResult]:
    """Run one session on ``snapshot`` as the worker does, sending every ``batch`` binds."""
    now = timezone.now()
    with BindPipeline(snapshot, now=now, batch=batch) as pipe:
        decisions = run_session(snapshot.cluster, load_conf(TEST_CONF), bind_listener=pipe.add)

        def plain(written: int | None) -> ApplyResult:
            return apply_decisions(snapshot, decisions, now=now, binds_written=written)

        result = pipe.finish(
            plain if write is None else (lambda written: write(snapshot, decisions, written))
        )
    return pipe, decisions, result


def bound_names() -> set[str]:
    return set(Pod.objects.filter(node__isnull=False).values_list("name", flat=True))


def scheduled_names() -> set[str]:
    return set(Event.objects.filter(reason="Scheduled").values_list("involved_name", flat=True))


@needs_postgres
def test_binds_sent_during_the_session_are_written_as_the_plain_write_writes_them() -> None:
    make_node("n1", cpu=8)
    make_node("n2", cpu=8)
    _, gang = make_gang("gang", replicas=3)
    singles = [make_gang(f"single-{i}", replicas=1)[1][0] for i in range(4)]

    pipe, decisions, result = pipelined(read_snapshot())

    assert pipe.sent == len(decisions.binds) == 7
    assert not pipe.fell_back
    assert result.bound == 7
    assert result.skipped_binds == []
    assert bound_names() == {p.name for p in gang + singles}
    for pod in Pod.objects.select_related("node"):
        assert decisions.binds[f"default/{pod.name}"] == pod.node_name
        assert pod.task_status == "Bound"
        assert pod.conditions[0]["type"] == "PodScheduled"
        assert pod.conditions[0]["status"] == "True"
        # Its version is the id of the change event its bind recorded (what a watch sees).
        change = ChangeEvent.objects.get(pk=pod.resource_version)
        assert (change.kind, change.object_pk) == ("core.pod", pod.pk)
    assert scheduled_names() == bound_names()
    assert result.pod_groups_updated == 5  # the rest was written after, in the same transaction


@needs_postgres
def test_a_pod_changed_after_the_snapshot_undoes_the_sent_binds_and_refuses_its_gang() -> None:
    make_node("n1", cpu=16)
    _, stale = make_gang("stale", replicas=3)
    _, fresh = make_gang("fresh", replicas=2)
    snapshot = read_snapshot()
    stale[2].labels = {"edited": "yes"}
    stale[2].save()  # a concurrent writer: this pod's version moved on

    pipe, _, result = pipelined(snapshot)

    assert pipe.sent > 0
    assert pipe.fell_back
    assert result.bound == 2
    assert sorted(result.skipped_binds) == sorted(f"default/{p.name}" for p in stale)
    assert bound_names() == scheduled_names() == {p.name for p in fresh}


@needs_postgres
def test_a_node_filled_by_another_writer_after_the_snapshot_gets_nothing_over_its_size() -> None:
    node = make_node("n1", cpu=4)
    make_gang("g", replicas=3)
    snapshot = read_snapshot()
    _, (other,) = make_gang("other", replicas=1, cpu=2)
    Pod.objects.filter(pk=other.pk).update(node=node, phase="Running")

    pipe, _, result = pipelined(snapshot)

    assert pipe.sent > 0
    assert pipe.fell_back
    assert result.bound == 0
    assert sum(p.cpu_milli for p in Pod.objects.filter(node=node)) <= 4000
    assert scheduled_names() == set()


@needs_postgres
def test_a_node_cordoned_after_the_snapshot_gets_no_binds() -> None:
    node = make_node("n1")
    make_gang("g", replicas=2)
    snapshot = read_snapshot()
    node.unschedulable = True
    node.save()

    pipe, _, result = pipelined(snapshot)

    assert pipe.sent == 2
    assert pipe.fell_back
    assert result.bound == 0
    assert bound_names() == set()


@needs_postgres
def test_a_session_that_fails_after_sending_leaves_nothing_bound() -> None:
    make_node("n1", cpu=8)
    make_gang("g", replicas=4)
    snapshot = read_snapshot()

    def failing_session() -> None:
        with BindPipeline(snapshot, now=timezone.now(), batch=2) as pipe:
            run_session(snapshot.cluster, load_conf(TEST_CONF), bind_listener=pipe.add)
            sent.append(pipe.sent)
            raise RuntimeError("engine failed")

    sent: list[int] = []
    with pytest.raises(RuntimeError, match="engine failed"):
        failing_session()

    assert sent == [4]  # all four binds had gone to the database
    assert bound_names() == set()
    assert scheduled_names() == set()
    # The connection is out of pipeline mode and usable.
    assert connection.connection.pgconn.pipeline_status == psycopg.pq.PipelineStatus.OFF
    assert Pod.objects.count() == 4


@needs_postgres
def test_a_write_that_fails_after_the_sent_binds_rolls_them_back() -> None:
    make_node("n1", cpu=8)
    make_gang("g", replicas=4)

    def lost_lease(snapshot: Snapshot, decisions: Decisions, written: int | None) -> ApplyResult:
        assert written == 4  # the sent binds are in, uncommitted
        raise RuntimeError("lost the scheduler lease before writing")

    with pytest.raises(RuntimeError, match="lost the scheduler lease"):
        pipelined(read_snapshot(), write=lost_lease)

    assert bound_names() == set()
    assert scheduled_names() == set()


@needs_postgres
def test_the_worker_sends_a_large_sessions_binds_early(settings: object) -> None:
    settings.VOLCANO_BIND_BATCH = 2  # type: ignore[attr-defined]
    use_conf()
    make_node("n1", cpu=8)
    _, pods = make_gang("g", replicas=5)

    summary = run_once(reconcile=False)

    assert summary.error == ""
    assert summary.applied is not None
    assert summary.applied.bound == 5
    assert bound_names() == {p.name for p in pods}
    record = SessionRecord.objects.get()
    assert record.binds == 5


@pytest.mark.skipif(POSTGRES, reason="SQLite's behaviour")
def test_on_sqlite_nothing_is_sent_early_and_the_plain_write_binds() -> None:
    make_node("n1", cpu=8)
    make_gang("g", replicas=4)

    pipe, _, result = pipelined(read_snapshot())

    assert pipe.sent == 0
    assert not pipe.fell_back
    assert result.bound == 4
    assert len(bound_names()) == 4
