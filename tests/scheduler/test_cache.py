"""The seam: one consistent snapshot in, decisions out, stale rows refused."""

from __future__ import annotations

import pytest
from django.utils import timezone

from core.models import Event, Node, Pod
from kube.models import ChangeEvent
from queues.models import PodGroup, Queue
from scheduler.cache import Snapshot, apply_decisions, read_snapshot, snapshot_to_scenario
from scheduler.cache.snapshot import _POD_SELECT, PodColumns
from scheduler.engine import load_conf, load_scenario, run_session
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework.decisions import Decisions, Eviction
from tests.scheduler.factories import GI, TEST_CONF, make_gang, make_node, make_queue

pytestmark = pytest.mark.django_db


def session() -> tuple[Snapshot, Decisions]:
    snapshot = read_snapshot()
    return snapshot, run_session(snapshot.cluster, load_conf(TEST_CONF))


def test_snapshot_holds_ready_nodes_and_live_pods_with_their_status() -> None:
    make_node("n1")
    make_node("down", ready=False)
    make_gang("done", replicas=1, phase="Completed")
    Pod.objects.filter(name="done-task-0").update(phase="Succeeded")
    _, (running, _pending) = make_gang("g", replicas=2)
    Pod.objects.filter(pk=running.pk).update(node=Node.objects.get(name="n1"), phase="Running")

    cluster = read_snapshot().cluster

    assert sorted(cluster.nodes) == ["n1"]
    assert sorted(cluster.jobs) == ["default/g"]
    statuses = {t.name: t.status for t in cluster.jobs["default/g"].tasks.values()}
    assert statuses == {"g-task-0": TaskStatus.RUNNING, "g-task-1": TaskStatus.PENDING}
    assert cluster.nodes["n1"].idle.get("cpu") == 3000
    assert cluster.jobs["default/g"].tasks["default/g-task-1"].resreq.get("pods") == 1000


def test_snapshot_reads_scheduling_constraints_from_the_pod_spec() -> None:
    spec = {
        "containers": [{"name": "c", "image": "x"}],
        "nodeSelector": {"zone": "a"},
        "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }
    make_gang("g", replicas=2, spec=spec)

    tasks = list(read_snapshot().cluster.jobs["default/g"].tasks.values())

    assert tasks[0].template.node_selector == {"zone": "a"}
    assert tasks[0].template.tolerations[0].key == "gpu"
    assert tasks[0].template is tasks[1].template  # one template per task: cached predicates


def test_replicas_labelled_with_their_task_index_still_share_one_template() -> None:
    _, replicas = make_gang("g", replicas=3)
    for index, pod in enumerate(replicas):
        Pod.objects.filter(pk=pod.pk).update(
            labels={**pod.labels, "app": "g", "volcano.sh/task-index": str(index)}
        )

    tasks = list(read_snapshot().cluster.jobs["default/g"].tasks.values())

    assert tasks[0].template is tasks[1].template is tasks[2].template
    assert tasks[0].template.labels["app"] == "g"
    assert "volcano.sh/task-index" not in tasks[0].template.labels


def test_a_gang_is_bound_and_its_pod_group_and_queue_status_written() -> None:
    make_node("n1")
    make_gang("g", replicas=3)
    snapshot, decisions = session()

    result = apply_decisions(snapshot, decisions, session_uid="s1")

    assert result.bound == 3
    assert result.skipped_binds == []
    pods = Pod.objects.filter(pod_group__name="g")
    assert {(p.node.name if p.node else "", p.task_status) for p in pods} == {("n1", "Bound")}
    # Each bind is a write: a newer version than the snapshot read (the change stream's id,
    # so watchers hear of it).
    read = {row.pk: row.resource_version for row in snapshot.pods.values()}
    assert all(p.resource_version > read[p.pk] for p in pods)
    group = PodGroup.objects.get(name="g")
    assert group.phase == "Inqueue"
    queue = Queue.objects.get(name="default")
    assert queue.inqueue == 1
    assert queue.allocated == {"cpu": 3000, "memory": 3 * GI, "pods": 3000}


def test_the_same_decisions_applied_twice_bind_nothing_the_second_time() -> None:
    make_node("n1")
    make_gang("g", replicas=2)
    snapshot, decisions = session()
    apply_decisions(snapshot, decisions)

    again = apply_decisions(snapshot, decisions)

    assert again.bound == 0
    assert again.skipped_binds == ["default/g-task-0", "default/g-task-1"]


def test_binds_decided_out_of_row_order_each_get_their_own_change_event() -> None:
    make_node("n1")
    make_node("n2")
    _, pods = make_gang("g", replicas=4)
    snapshot = read_snapshot()
    decisions = Decisions()
    for i, pod in enumerate(reversed(pods)):  # the engine's order is not the rows' order
        decisions.binds[f"default/{pod.name}"] = f"n{i % 2 + 1}"

    assert apply_decisions(snapshot, decisions).bound == 4

    for pod in Pod.objects.filter(pk__in=[p.pk for p in pods]).select_related("node"):
        assert pod.node is not None
        assert pod.node.name == decisions.binds[f"default/{pod.name}"]
        # Its resourceVersion is the change event that tells watchers about this very pod.
        event = ChangeEvent.objects.get(pk=pod.resource_version)
        assert (event.kind, event.type, event.name) == ("core.pod", "MODIFIED", pod.name)


def test_jobs_of_one_spec_keep_their_labels_and_share_the_spec_key() -> None:
    spec = {"containers": [{"name": "c", "image": "x"}], "nodeSelector": {"zone": "a"}}
    for name in ("a", "b"):
        _, (pod,) = make_gang(name, replicas=1, spec=spec)
        pod.labels = {"job": name}
        pod.save()

    jobs = read_snapshot().cluster.jobs
    (a,), (b,) = jobs["default/a"].tasks.values(), jobs["default/b"].tasks.values()

    assert (a.labels, b.labels) == ({"job": "a"}, {"job": "b"})
    assert a.template.node_selector == b.template.node_selector == {"zone": "a"}
    assert a.template.spec_key == b.template.spec_key
    assert a.template.key != b.template.key  # inter-pod rules still tell them apart
    assert a.template_key == b.template_key  # one node-answer cache entry for both


def test_a_pod_changed_after_the_snapshot_refuses_its_whole_gang_until_next_session() -> None:
    make_node("n1")
    _, pods = make_gang("g", replicas=3)
    snapshot, decisions = session()
    pods[1].labels = {"edited": "yes"}
    pods[1].save()  # a concurrent writer: resourceVersion moves on

    result = apply_decisions(snapshot, decisions)

    assert result.bound == 0
    assert len(result.skipped_binds) == 3
    assert not Pod.objects.filter(node__isnull=False).exists()
    # The next session reads the new version and binds the gang.
    snapshot, decisions = session()
    assert apply_decisions(snapshot, decisions).bound == 3


def test_a_stale_pod_undoes_only_its_own_gangs_binds_and_their_events() -> None:
    make_node("n1", cpu=16)
    _, stale_gang = make_gang("stale", replicas=3)
    _, fresh_gang = make_gang("fresh", replicas=2)
    snapshot, decisions = session()
    assert len(decisions.binds) == 5
    stale_gang[2].labels = {"edited": "yes"}
    stale_gang[2].save()  # only the last pod of one gang moved on

    result = apply_decisions(snapshot, decisions)

    assert result.bound == 2
    assert sorted(result.skipped_binds) == sorted(f"default/{p.name}" for p in stale_gang)
    bound = set(Pod.objects.filter(node__isnull=False).values_list("name", flat=True))
    assert bound == {p.name for p in fresh_gang}
    scheduled = set(
        Event.objects.filter(reason="Scheduled").values_list("involved_name", flat=True)
    )
    assert scheduled == {p.name for p in fresh_gang}  # the undone binds left no event


def test_a_node_filled_by_another_writer_refuses_binds_that_would_overflow_it() -> None:
    node = make_node("n1", cpu=4)
    make_gang("g", replicas=3)
    snapshot, decisions = session()
    # After the snapshot, someone else puts a 2-CPU pod on the node.
    _, (other,) = make_gang("other", replicas=1, cpu=2)
    Pod.objects.filter(pk=other.pk).update(node=node, phase="Running")

    result = apply_decisions(snapshot, decisions)

    assert result.bound == 0
    used = sum(p.cpu_milli for p in Pod.objects.filter(node=node))
    assert used <= 4000


def test_a_node_cordoned_after_the_snapshot_gets_no_binds() -> None:
    node = make_node("n1")
    make_gang("g", replicas=1)
    snapshot, decisions = session()
    node.unschedulable = True
    node.save()

    assert apply_decisions(snapshot, decisions).bound == 0


def test_a_gang_that_cannot_fit_is_marked_unschedulable_with_the_engine_reason() -> None:
    make_node("n1", cpu=2)
    make_gang("big", replicas=4)
    snapshot, decisions = session()

    apply_decisions(snapshot, decisions, session_uid="s1")

    group = PodGroup.objects.get(name="big")
    unschedulable = [c for c in group.conditions if c["type"] == "Unschedulable"]
    assert unschedulable
    assert unschedulable[0]["status"] == "True"
    assert unschedulable[0]["message"] == decisions.unschedulable["default/big"]
    assert not Pod.objects.filter(node__isnull=False).exists()


def test_groups_keep_their_own_conditions_and_unchanged_ones_are_not_rewritten() -> None:
    make_node("n1", cpu=4)
    make_gang("fresh", replicas=1)
    waited, _ = make_gang("waited", replicas=1)
    waited.conditions = [
        {"type": "Unschedulable", "status": "True", "reason": "NotEnoughResources",
         "message": "1/1 tasks in gang unschedulable", "transitionID": "s0"},
    ]  # fmt: skip
    waited.save()
    apply_decisions(*session(), session_uid="s1")  # both bound
    Pod.objects.update(phase="Running")  # the kubelet starts them

    apply_decisions(*session(), session_uid="s2")  # both groups go Running

    fresh, waited = PodGroup.objects.get(name="fresh"), PodGroup.objects.get(name="waited")
    assert (fresh.phase, waited.phase) == ("Running", "Running")
    assert not [c for c in fresh.conditions if c["type"] == "Unschedulable"]
    (flipped,) = [c for c in waited.conditions if c["type"] == "Unschedulable"]
    assert (flipped["status"], flipped["reason"], flipped["transitionID"]) == (
        "False", "Scheduled", "s2",
    )  # fmt: skip
    versions = (fresh.resource_version, waited.resource_version)
    apply_decisions(*session(), session_uid="s3")  # nothing changed: no write, no watch event
    assert (
        PodGroup.objects.get(name="fresh").resource_version,
        PodGroup.objects.get(name="waited").resource_version,
    ) == versions


def test_an_eviction_marks_the_pod_releasing_and_records_an_event() -> None:
    node = make_node("n1")
    _, (pod,) = make_gang("victim", replicas=1)
    Pod.objects.filter(pk=pod.pk).update(node=node, phase="Running")
    snapshot = read_snapshot()
    decisions = Decisions(evictions=[Eviction("default/victim-task-0", "n1", "preempted")])

    result = apply_decisions(snapshot, decisions)

    pod.refresh_from_db()
    assert result.evicted == 1
    assert pod.deletion_time is not None
    assert pod.task_status == "Releasing"
    (event,) = Event.objects.filter(involved_name=pod.name, reason="Evict")
    assert (event.type, event.involved_kind) == ("Warning", "Pod")
    assert event.message == "Pod default/victim-task-0 evicted from n1: preempted"
    # A second eviction of the same (now changed) pod is refused, and records no event.
    assert apply_decisions(snapshot, decisions).skipped_evictions == ["default/victim-task-0"]
    assert Event.objects.filter(reason="Evict").count() == 1


def test_an_eviction_a_plugin_chose_names_the_action_and_the_plugin() -> None:
    node = make_node("n1")
    _, (pod,) = make_gang("spot", replicas=1)
    Pod.objects.filter(pk=pod.pk).update(node=node, phase="Running")
    decisions = Decisions(
        evictions=[Eviction("default/spot-task-0", "n1", "shuffle", plugin="tdm")]
    )

    assert apply_decisions(read_snapshot(), decisions).evicted == 1

    pod.refresh_from_db()
    assert (pod.reason, pod.message) == ("Evicted", "shuffle (tdm)")
    (event,) = Event.objects.filter(involved_name=pod.name, reason="Evict")
    assert event.message == "Pod default/spot-task-0 evicted from n1: shuffle (tdm)"


def test_snapshot_keeps_each_pod_group_and_pods_creation_time_to_the_microsecond() -> None:
    import datetime as dt

    older = dt.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=dt.UTC)
    newer = dt.datetime(2026, 1, 2, 3, 4, 6, tzinfo=dt.UTC)
    group, (pod,) = make_gang("g", replicas=1)
    PodGroup.objects.filter(pk=group.pk).update(created_at=older)
    Pod.objects.filter(pk=pod.pk).update(created_at=newer)

    job = read_snapshot().cluster.jobs["default/g"]

    # Job order falls back on creation time, so it must come back exact and comparable.
    assert job.creation_timestamp == older
    (task,) = job.tasks.values()
    assert task.creation_timestamp == newer
    assert task.creation_timestamp is not None
    assert task.creation_timestamp.utcoffset() == dt.timedelta(0)


def test_of_two_evictions_the_stale_one_is_refused_and_leaves_no_trace_in_the_streams() -> None:
    node = make_node("n1")
    _, (kept,) = make_gang("kept", replicas=1)
    _, (gone,) = make_gang("gone", replicas=1)
    Pod.objects.filter(pk__in=[kept.pk, gone.pk]).update(node=node, phase="Running")
    snapshot = read_snapshot()
    gone.refresh_from_db()
    gone.labels = {"edited": "yes"}
    gone.save()  # another writer: its version moved on after the snapshot
    version_before = gone.resource_version
    decisions = Decisions(
        evictions=[
            Eviction("default/kept-task-0", "n1", "preempted"),
            Eviction("default/gone-task-0", "n1", "preempted"),
        ]
    )

    result = apply_decisions(snapshot, decisions)

    assert result.evicted == 1
    assert result.skipped_evictions == ["default/gone-task-0"]
    evicted = {e.involved_name for e in Event.objects.filter(reason="Evict")}
    assert evicted == {kept.name}
    gone.refresh_from_db()
    assert gone.deletion_time is None
    assert gone.resource_version == version_before
    # Watchers hear of the eviction that took, and of nothing for the refused one.
    kept.refresh_from_db()
    assert ChangeEvent.objects.get(pk=kept.resource_version).object_pk == kept.pk
    assert not ChangeEvent.objects.filter(
        object_pk=gone.pk, kind="core.pod", pk__gt=version_before
    ).exists()


def test_queue_status_counts_pod_groups_per_queue() -> None:
    make_node("small", cpu=1)
    make_queue("q1", weight=2)
    make_gang("a", replicas=1, queue="q1", cpu=2)
    make_gang("b", replicas=1, queue="q1", cpu=2, phase="Running")
    snapshot, decisions = session()  # nothing fits: only the counts change

    apply_decisions(snapshot, decisions)

    q1 = Queue.objects.get(name="q1")
    phases = list(PodGroup.objects.filter(queue="q1").values_list("phase", flat=True))
    assert (q1.pending, q1.inqueue, q1.running) == (
        phases.count("Pending"),
        phases.count("Inqueue"),
        phases.count("Running"),
    )
    assert q1.pending + q1.inqueue + q1.running + q1.unknown == 2
    assert Queue.objects.get(name="default").pending == 0


def test_exported_snapshot_replays_to_the_same_decisions() -> None:
    make_node("n1", cpu=8)
    make_node("n2", cpu=2, taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])
    make_gang("g", replicas=3)
    make_gang("h", replicas=2, cpu=2)
    live = read_snapshot(now=timezone.now())
    text = snapshot_to_scenario(live.cluster, conf_text=TEST_CONF, name="live")

    replay = load_scenario(text)
    expected = run_session(live.cluster, load_conf(TEST_CONF))

    assert run_session(replay.cluster, replay.conf).binds == expected.binds
    assert sorted(replay.cluster.nodes) == ["n1", "n2"]


def test_the_pod_read_selects_its_named_columns_in_order() -> None:
    assert tuple(_POD_SELECT) == PodColumns._fields
