"""Deleting a node: no pod stays on it, even when a session binds to it at that moment.

Its running and waiting pods are collected as Kubernetes' pod GC does (Failed, then deleted:
``tests/core/test_node_deletion.py`` shows the job's side); finished pods stay, on no node.
"""

from __future__ import annotations

import os
import threading
import time

import pytest
from django.db import connection, connections, transaction

from core.models import Node, Pod
from kubelet.api.pod_log import pod_log_text
from scheduler.cache import apply_decisions, read_snapshot
from scheduler.engine import load_conf, run_session
from tests.scheduler.factories import TEST_CONF, make_gang, make_node


@pytest.mark.django_db
def test_deleting_a_node_collects_its_pods_and_unbinds_finished_ones() -> None:
    node = make_node("n1")
    _, pods = make_gang("g", replicas=3)
    running, waiting, done = pods
    Pod.objects.filter(pk=running.pk).update(node=node, phase="Running")
    Pod.objects.filter(pk=waiting.pk).update(node=node, phase="Pending")
    Pod.objects.filter(pk=done.pk).update(node=node, phase="Succeeded")

    node.delete()

    left = Pod.objects.filter(pk__in=[p.pk for p in pods])
    assert list(left.values_list("pk", flat=True)) == [done.pk]
    assert left.get().node_id is None


@pytest.mark.django_db
def test_a_pod_whose_node_row_is_gone_reads_as_bound_to_no_node() -> None:
    node = make_node("n1")
    make_node("n2")
    _, (pod,) = make_gang("g", replicas=1)
    Pod.objects.filter(pk=pod.pk).update(node=node, phase="Running")
    with connection.cursor() as cursor:  # gone without Django (no constraint stops it)
        cursor.execute(f"DELETE FROM {Node._meta.db_table} WHERE id = %s", [node.pk])

    pod.refresh_from_db()
    assert pod.node_name == ""
    assert "on node" not in pod_log_text(pod)
    snapshot = read_snapshot()  # the session still reads the cluster
    assert list(snapshot.cluster.nodes) == ["n2"]


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="row locks across connections: needs DATABASE_URL pointing at PostgreSQL",
)
@pytest.mark.django_db(transaction=True)
def test_a_node_deleted_while_a_session_binds_to_it_keeps_no_pod() -> None:
    make_node("n1")
    make_gang("g", replicas=2)
    snapshot = read_snapshot()
    decisions = run_session(snapshot.cluster, load_conf(TEST_CONF))
    assert len(decisions.binds) == 2
    bound = threading.Event()
    deleted = threading.Event()

    def delete_node() -> None:
        bound.wait(10)
        try:
            Node.objects.filter(name="n1").delete()
        finally:
            connections.close_all()
            deleted.set()

    deleter = threading.Thread(target=delete_node)
    deleter.start()
    with transaction.atomic():  # the session's write, not yet committed
        assert apply_decisions(snapshot, decisions).bound == 2
        bound.set()
        time.sleep(0.5)  # the deletion starts meanwhile and must wait for this commit
        assert not deleted.is_set()
    deleter.join(10)

    assert deleted.is_set()
    assert not Node.objects.exists()
    # The pods the session bound were collected with the node (pod GC), none is left on it.
    assert not Pod.objects.exists()
