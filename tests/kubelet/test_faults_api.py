"""Fault injection through the API: operators break nodes and pods, the scheduler sees it."""

from __future__ import annotations

from django.test import Client

from accounts.models import AuditEntry
from core.models import Node, Pod
from scheduler.worker import run_once
from tests.kube.api_kit import NODES, PODS
from tests.kubelet.faults_kit import inject
from tests.scheduler.factories import make_gang, make_node


def test_operator_takes_a_node_down_and_its_pods_fail(operator: Client) -> None:
    node = make_node("n1")
    _, pods = make_gang("g", replicas=1)
    Pod.objects.filter(pk=pods[0].pk).update(node=node, phase="Running")

    response = inject(operator, f"{NODES}/n1", {"type": "NodeDown"})

    assert response.status_code == 201
    assert response.json()["status"] == {"injected": True, "type": "NodeDown", "podsFailed": 1}
    assert Node.objects.get(name="n1").ready is False
    assert Pod.objects.get(pk=pods[0].pk).phase == "Failed"
    entry = AuditEntry.objects.get(action="inject")
    assert (entry.actor_name, entry.kind, entry.name) == ("olga", "Fault", "nodes/n1")


def test_a_bind_failure_keeps_a_gang_off_the_node_until_recovery(operator: Client) -> None:
    make_node("n1")
    make_gang("g", replicas=2)

    assert inject(operator, f"{NODES}/n1", {"type": "BindFailure"}).status_code == 201
    run_once(reconcile=False)
    assert not Pod.objects.filter(node__isnull=False).exists()
    assert "faults.volcano.sh/bind-failure" in Node.objects.get(name="n1").annotations

    assert inject(operator, f"{NODES}/n1", {"type": "BindRecovery"}).status_code == 201
    run_once(reconcile=False)
    assert Pod.objects.filter(node__name="n1").count() == 2


def test_operator_fails_a_pod_with_an_exit_code(operator: Client) -> None:
    node = make_node("n1")
    _, pods = make_gang("g", replicas=1)
    Pod.objects.filter(pk=pods[0].pk).update(node=node, phase="Running")

    response = inject(operator, PODS.format(ns="default") + f"/{pods[0].name}",
                      {"type": "PodFail", "exitCode": 3})  # fmt: skip

    assert response.status_code == 201
    pod = Pod.objects.get(pk=pods[0].pk)
    assert (pod.phase, pod.exit_code) == ("Failed", 3)
    again = inject(operator, PODS.format(ns="default") + f"/{pods[0].name}", {"type": "PodEvict"})
    assert again.status_code == 409


def test_an_unknown_fault_is_refused_naming_the_field(operator: Client) -> None:
    make_node("n1")

    response = inject(operator, f"{NODES}/n1", {"type": "Meteor"})

    assert response.status_code == 422
    assert response.json()["details"]["causes"][0]["field"] == "spec.type"
    assert Node.objects.get(name="n1").ready is True
    assert not AuditEntry.objects.filter(action="inject").exists()


def test_a_bad_exit_code_is_refused_and_nothing_changes(operator: Client) -> None:
    make_node("n1")
    _, pods = make_gang("g", replicas=1)

    response = inject(operator, PODS.format(ns="default") + f"/{pods[0].name}",
                      {"type": "PodFail", "exitCode": "boom"})  # fmt: skip

    assert response.status_code == 422
    assert response.json()["details"]["causes"][0]["field"] == "spec.exitCode"
    assert Pod.objects.get(pk=pods[0].pk).phase == "Pending"


def test_only_operators_inject_faults(submitter: Client, viewer: Client) -> None:
    make_node("n1")

    for client in (submitter, viewer, Client()):
        response = inject(client, f"{NODES}/n1", {"type": "NodeDown"})
        assert response.status_code in (401, 403)
    assert Node.objects.get(name="n1").ready is True


def test_a_missing_node_is_404(operator: Client) -> None:
    assert inject(operator, f"{NODES}/ghost", {"type": "NodeDown"}).status_code == 404


def test_manage_py_fault_arms_and_clears_the_same_bind_failure(db: None) -> None:
    from io import StringIO

    from django.core.management import call_command

    make_node("n1")
    out = StringIO()
    call_command("fault", "bind-failure", "n1", stdout=out)
    assert "faults.volcano.sh/bind-failure" in Node.objects.get(name="n1").annotations
    call_command("fault", "bind-recovery", "n1", stdout=out)
    assert Node.objects.get(name="n1").annotations == {}
    assert out.getvalue().splitlines() == ["node/n1 binds fail", "node/n1 binds work"]
