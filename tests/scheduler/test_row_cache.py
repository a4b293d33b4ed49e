"""The worker's rows kept between sessions: an incremental read equals a full one after any write."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.models import Node, Pod, PriorityClass
from kube.changes import prune_changes
from kube.models import ChangeEvent
from kubelet import faults, runtime
from queues.models import PodGroup
from scheduler import worker
from scheduler.cache import Snapshot, read_snapshot
from scheduler.cache.row_cache import RowCache
from scheduler.engine import load_conf, run_session
from scheduler.worker import run_once
from tests.scheduler.factories import make_gang, make_node, make_queue, use_conf
from tests.scheduler.row_cache_kit import snapshot_differences
from topology.models import HyperNode

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


def read(cache: RowCache | None = None) -> Snapshot:
    """Read as the worker does (with ``cache``) or in full (without), at one instant."""
    return read_snapshot(now=START, cache=cache)


def cluster() -> None:
    """Three nodes, a queue, a gang running on the nodes and one waiting."""
    use_conf()
    make_queue("q1", weight=2)
    for name in ("n1", "n2", "n3"):
        make_node(name)
    group, pods = make_gang("running", replicas=2)
    node = Node.objects.get(name="n1")
    for pod in pods:
        pod.node, pod.phase = node, "Running"
        pod.save()
    group.phase = "Running"
    group.save()
    make_gang("waiting", replicas=3, queue="q1")


def schedule() -> None:
    run_once(now=START, record=False)


def create_pods() -> None:
    make_gang("new", replicas=4, cpu=2)


def bind_and_start() -> None:
    schedule()
    runtime.tick(now=START + dt.timedelta(seconds=5))


def delete_pod() -> None:
    Pod.objects.get(name="running-task-0").delete()


def delete_group_and_pods() -> None:
    Pod.objects.filter(pod_group__name="waiting").delete()
    PodGroup.objects.get(name="waiting").delete()


def complete_group() -> None:
    """A finished job: its Succeeded pods leave the snapshot with its Completed group."""
    for pod in Pod.objects.filter(pod_group__name="running"):
        pod.phase = "Succeeded"
        pod.save()
    group = PodGroup.objects.get(name="running")
    group.phase = "Completed"
    group.save()


def complete_group_with_a_pod_left_running() -> None:
    group = PodGroup.objects.get(name="running")
    group.phase = "Completed"
    group.save()


def change_nodes() -> None:
    faults.node_cordon(node=Node.objects.get(name="n2"))
    faults.node_down(node=Node.objects.get(name="n1"), now=START)
    make_node("n4", cpu=8, labels={"zone": "b"})
    Node.objects.get(name="n3").delete()


def node_comes_back() -> None:
    faults.node_down(node=Node.objects.get(name="n1"), now=START)
    faults.node_up(node=Node.objects.get(name="n1"), now=START)


def fail_and_evict_pods() -> None:
    faults.pod_fail(pod=Pod.objects.get(name="running-task-0"), now=START)
    faults.pod_evict(pod=Pod.objects.get(name="running-task-1"), now=START)


def recreate_pod_under_the_same_name() -> None:
    pod = Pod.objects.get(name="waiting-task-0")
    requests = {"cpu": 3000, "memory": 1024}
    pod.delete()
    Pod.objects.create(
        namespace="default", name="waiting-task-0", pod_group=PodGroup.objects.get(name="waiting"),
        task_name="task", requests=requests, cpu_milli=3000, memory_milli=1024,
        spec={"containers": [{"name": "main", "image": "other"}]},
    )  # fmt: skip


def small_tables() -> None:
    """Queues, priority classes and HyperNodes: read whole every session."""
    make_queue("q2", weight=5)
    PriorityClass.objects.create(name="high", value=1000)
    HyperNode.objects.create(name="rack-0", tier=1, members=[{"type": "Node",
                             "selector": {"exactMatch": {"name": "n1"}}}])  # fmt: skip


def edit_group_spec() -> None:
    group = PodGroup.objects.get(name="waiting")
    group.min_member = 1
    group.queue = "default"
    group.save()


@dataclass(frozen=True)
class Case:
    name: str
    write: Callable[[], None]


CASES = [
    Case("nothing", lambda: None),
    Case("pods created", create_pods),
    Case("pods bound by a session and started by the kubelet", bind_and_start),
    Case("a pod deleted", delete_pod),
    Case("a PodGroup and its pods deleted", delete_group_and_pods),
    Case("a PodGroup completed", complete_group),
    Case("a Completed PodGroup with a pod still running", complete_group_with_a_pod_left_running),
    Case("nodes cordoned, down, added and deleted", change_nodes),
    Case("a node down then up", node_comes_back),
    Case("pods failed and evicted", fail_and_evict_pods),
    Case("a pod deleted and created again", recreate_pod_under_the_same_name),
    Case("queues, priority classes, HyperNodes", small_tables),
    Case("a PodGroup's spec edited", edit_group_spec),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_incremental_read_after_writes_equals_a_full_read(case: Case) -> None:
    cluster()
    cache = RowCache()
    read(cache)
    assert cache.stats.mode == "full"

    case.write()
    incremental = read(cache)

    assert cache.stats.mode == "incremental", cache.stats.reason
    assert snapshot_differences(incremental, read()) == []


def test_every_write_in_turn_keeps_the_cache_equal_to_a_full_read() -> None:
    cluster()
    cache = RowCache()
    read(cache)
    # An order in which every write still finds what it writes.
    for write in (create_pods, small_tables, edit_group_spec, fail_and_evict_pods,
                  node_comes_back, recreate_pod_under_the_same_name, bind_and_start,
                  complete_group_with_a_pod_left_running, delete_pod, complete_group,
                  delete_group_and_pods, change_nodes, bind_and_start):  # fmt: skip
        write()
        incremental = read(cache)
        assert cache.stats.mode == "incremental", write.__name__
        assert snapshot_differences(incremental, read()) == [], write.__name__


def test_worker_sessions_read_incrementally_and_bind_as_before() -> None:
    cluster()
    for second in range(4):
        summary = run_once(now=START + dt.timedelta(seconds=second), record=False)
        assert summary.applied is not None
    assert Pod.objects.filter(pod_group__name="waiting", node__isnull=False).count() == 3


def test_unchanged_cluster_reads_no_pod_rows() -> None:
    cluster()
    cache = RowCache()
    read(cache)

    read(cache)

    assert (cache.stats.mode, cache.stats.changes, cache.stats.fetched) == ("incremental", 0, 0)


def test_too_many_changes_fall_back_to_a_full_read() -> None:
    cluster()
    cache = RowCache(max_changes=2)
    read(cache)

    create_pods()
    snapshot = read(cache)

    assert cache.stats.mode == "full"
    assert cache.stats.reason == "more than 2 changes"
    assert snapshot_differences(snapshot, read()) == []


def test_a_pruned_change_stream_falls_back_to_a_full_read() -> None:
    cluster()
    cache = RowCache()
    read(cache)
    create_pods()

    ChangeEvent.objects.update(created_at=START)
    make_node("n9")  # the newest event stays
    ChangeEvent.objects.filter(name="n9").update(created_at=dt.datetime.now(tz=dt.UTC))
    assert prune_changes(keep_seconds=60) > 0
    snapshot = read(cache)

    assert cache.stats.mode == "full"
    assert "pruned" in cache.stats.reason
    assert snapshot_differences(snapshot, read()) == []


def test_a_stream_that_lost_its_events_falls_back_to_a_full_read() -> None:
    cluster()
    cache = RowCache()
    read(cache)

    ChangeEvent.objects.all().delete()  # as if the database were emptied and filled again
    make_node("n9")
    read(cache)

    assert cache.stats.mode == "full"


def test_every_nth_read_is_full() -> None:
    cluster()
    cache = RowCache(full_every=3)
    modes = []
    for _ in range(4):
        read(cache)
        modes.append(cache.stats.mode)

    assert modes == ["full", "incremental", "full", "incremental"]


def test_an_unchanged_read_runs_as_many_queries_at_two_sizes() -> None:
    cluster()
    cache = RowCache()
    counts = []
    for extra in (2, 20):
        for i in range(extra):
            make_gang(f"more-{extra}-{i}", replicas=3)
        read(cache)
        with CaptureQueriesContext(connection) as queries:
            read(cache)
        counts.append(len(queries))

    assert counts[0] == counts[1]


def test_a_task_whose_first_pod_goes_takes_its_next_pods_spec_as_a_full_read_does() -> None:
    cluster()
    group, (first, second) = make_gang("mixed", replicas=2)
    second.spec = {"containers": [{"name": "main", "image": "other"}]}
    second.save()
    cache = RowCache()
    read(cache)

    first.delete()
    incremental = read(cache)

    assert cache.stats.mode == "incremental"
    assert snapshot_differences(incremental, read()) == []
    task = incremental.cluster.jobs[f"default/{group.name}"].tasks["default/mixed-task-1"]
    assert task.template.images == ("other",)


def test_a_read_while_another_holds_the_cache_reads_in_full_and_leaves_it_alone() -> None:
    cluster()
    cache = RowCache()
    read(cache)
    held = cache.rows

    with cache.lock:
        create_pods()
        snapshot = read(cache)

    assert snapshot.read_stats.mode == "full"
    assert cache.rows is held
    assert snapshot_differences(read(cache), snapshot) == []
    assert cache.stats.mode == "incremental"


PREEMPT_CONF = """\
actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""


def test_a_session_that_changed_its_snapshot_leaves_the_next_read_equal_to_a_full_one() -> None:
    # The cache keeps the objects it built for unchanged rows and gives each read copies: a
    # session allocating, pipelining and recording fit errors on its copies must not reach the
    # kept ones, whatever was written before it.
    cluster()
    make_gang("too-big", replicas=2, cpu=64)  # never fits: fit errors on its job and tasks
    cache = RowCache()
    read(cache)
    for write in (create_pods, small_tables, edit_group_spec, fail_and_evict_pods,
                  node_comes_back, bind_and_start, delete_pod, change_nodes):  # fmt: skip
        write()
        snapshot = read(cache)  # (queues and classes: no row changed, the kept one is stale)
        assert snapshot_differences(snapshot, read()) == [], write.__name__
        # Nothing written since: the first quiet read keeps what it builds and hands out a
        # copy, the next copies what it kept.
        for quiet in range(2):
            decisions = run_session(snapshot.cluster, load_conf(PREEMPT_CONF))
            assert decisions.binds or decisions.unschedulable, write.__name__

            later = START + dt.timedelta(seconds=quiet + 1)  # nodes' usage measured anew
            snapshot = read_snapshot(now=later, cache=cache)

            assert (cache.stats.mode, cache.stats.changes) == ("incremental", 0), write.__name__
            full = read_snapshot(now=later)
            assert snapshot_differences(snapshot, full) == [], (write.__name__, quiet)


def test_worker_sessions_on_an_unchanged_cluster_copy_the_snapshot_they_kept() -> None:
    # A session that places nothing writes nothing the snapshot reads (reasons already given,
    # loads stored without a new version): the worker's next reads find no change and, from
    # the second such read on, hand the session a copy instead of building.
    use_conf()
    make_queue("q1")
    make_node("n1")
    make_gang("too-big", replicas=2, cpu=64, queue="q1")
    copied = []
    for second in range(4):
        summary = run_once(now=START + dt.timedelta(seconds=second), record=False)
        assert summary.applied is not None
        assert summary.applied.bound == 0
        copied.append(worker._ROWS.stats.copied)

    assert copied[-1] is True
    assert Pod.objects.filter(pod_group__name="too-big", node__isnull=True).count() == 2
