"""Fault injection from the admin: the Node and Pod change lists carry the fault actions."""

from __future__ import annotations

from django.test import Client

from core.models import Node, Pod
from tests.scheduler.factories import make_gang, make_node


def test_taking_a_node_down_from_the_admin_fails_its_pods(superuser_client: Client) -> None:
    node = make_node("n1")
    _, (pod,) = make_gang("g", replicas=1)
    Pod.objects.filter(pk=pod.pk).update(node=node, phase="Running")

    response = superuser_client.post(
        "/admin/core/node/", {"action": "take_down", "_selected_action": [node.pk]}
    )

    assert response.status_code == 302
    node.refresh_from_db()
    pod.refresh_from_db()
    assert node.ready is False
    assert (pod.phase, pod.reason) == ("Failed", "NodeNotReady")


def test_cordoning_from_the_admin_marks_the_node_unschedulable(superuser_client: Client) -> None:
    node = make_node("n1")
    superuser_client.post("/admin/core/node/", {"action": "cordon", "_selected_action": [node.pk]})
    assert Node.objects.get(pk=node.pk).unschedulable is True


def test_evicting_and_failing_pods_from_the_admin(superuser_client: Client) -> None:
    node = make_node("n1")
    _, (a, b) = make_gang("g", replicas=2)
    Pod.objects.filter(pk__in=[a.pk, b.pk]).update(node=node, phase="Running")

    superuser_client.post("/admin/core/pod/", {"action": "evict_pods", "_selected_action": [a.pk]})
    superuser_client.post("/admin/core/pod/", {"action": "fail_pods", "_selected_action": [b.pk]})

    a.refresh_from_db()
    b.refresh_from_db()
    assert (a.reason, a.deletion_time is not None) == ("Evicted", True)
    assert (b.phase, b.exit_code) == ("Failed", 1)
