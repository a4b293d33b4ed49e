"""What ``kubectl get pods`` and ``-o yaml`` show of a pod the simulated kubelet runs.

Conditions and container statuses as a kubelet reports them, the READY/STATUS/RESTARTS
columns, and ``kubectl delete pod`` as a graceful deletion (Terminating through its grace
period), all through the Kubernetes-style API.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from apis.wire import format_time
from core.models import Pod
from kubelet.runtime import RuntimeSettings, tick
from tests.kube.api_kit import PODS
from tests.scheduler.factories import make_gang, make_node

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
FAST = RuntimeSettings(start_delay=1.0, default_duration=30.0, speed=1.0)
CONTAINERS = [{"name": "main", "image": "busybox:1.36"}, {"name": "side", "image": "nginx"}]


def _rows(client: Client) -> dict[str, dict[str, Any]]:
    answer = client.get(PODS.format(ns="default"), headers={"accept": TABLE})
    assert answer.status_code == 200, answer.content
    table = answer.json()
    names = [column["name"] for column in table["columnDefinitions"]]
    return {row["cells"][0]: dict(zip(names, row["cells"], strict=True)) for row in table["rows"]}


def _pod(client: Client, name: str) -> dict[str, Any]:
    answer = client.get(f"{PODS.format(ns='default')}/{name}")
    assert answer.status_code == 200, answer.content
    pod: dict[str, Any] = answer.json()
    return pod


def _conditions(pod: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in pod["status"].get("conditions", [])}


def _bound(name: str, spec: dict[str, Any], annotations: dict[str, str] | None = None) -> Pod:
    node = make_node(f"{name}-node")
    _, (pod,) = make_gang(name, replicas=1, spec=spec, annotations=annotations)
    Pod.objects.filter(pk=pod.pk).update(node=node, task_status="Bound")
    pod.refresh_from_db()
    return pod


@pytest.mark.django_db
def test_a_running_pod_is_ready_one_of_one_with_kubelet_conditions(operator: Client) -> None:
    _bound("web", {"containers": CONTAINERS[:1]})
    t0 = timezone.now()
    tick(now=t0, config=FAST)
    assert _rows(operator)["web-task-0"]["Ready"] == "0/1"
    assert _rows(operator)["web-task-0"]["Status"] == "ContainerCreating"
    creating = _pod(operator, "web-task-0")
    assert _conditions(creating)["Ready"]["reason"] == "ContainersNotReady"
    assert creating["status"]["containerStatuses"][0]["state"] == {
        "waiting": {"reason": "ContainerCreating"}
    }

    tick(now=t0 + timedelta(seconds=1), config=FAST)

    row = _rows(operator)["web-task-0"]
    assert (row["Ready"], row["Status"], row["Restarts"]) == ("1/1", "Running", 0)
    pod = _pod(operator, "web-task-0")
    conditions = _conditions(pod)
    assert {kind: c["status"] for kind, c in conditions.items()} == {
        "Initialized": "True",
        "Ready": "True",
        "ContainersReady": "True",
    }
    assert conditions["Initialized"]["lastTransitionTime"] == format_time(t0)
    assert conditions["Ready"]["lastTransitionTime"] == format_time(t0 + timedelta(seconds=1))
    (status,) = pod["status"]["containerStatuses"]
    assert status["name"] == "main"
    assert status["image"] == "busybox:1.36"
    assert status["imageID"] == ""
    assert (status["ready"], status["started"], status["restartCount"]) == (True, True, 0)
    assert status["state"]["running"]["startedAt"] == format_time(t0 + timedelta(seconds=1))


@pytest.mark.django_db
def test_every_container_of_a_pod_reports_and_counts_in_ready(operator: Client) -> None:
    _bound("pair", {"containers": CONTAINERS})
    t0 = timezone.now()
    tick(now=t0, config=FAST)
    tick(now=t0 + timedelta(seconds=1), config=FAST)

    assert _rows(operator)["pair-task-0"]["Ready"] == "2/2"
    statuses = _pod(operator, "pair-task-0")["status"]["containerStatuses"]
    assert [(s["name"], s["image"], s["ready"]) for s in statuses] == [
        ("main", "busybox:1.36", True),
        ("side", "nginx", True),
    ]


@pytest.mark.django_db
def test_a_finished_pod_is_not_ready_with_reason_pod_completed(operator: Client) -> None:
    _bound("done", {"restartPolicy": "Never", "containers": CONTAINERS[:1]},
           {"volcano.sh/sim-duration": "2s"})  # fmt: skip
    t0 = timezone.now()
    for step in (0, 1, 3):
        tick(now=t0 + timedelta(seconds=step), config=FAST)

    row = _rows(operator)["done-task-0"]
    assert (row["Ready"], row["Status"]) == ("0/1", "Completed")
    pod = _pod(operator, "done-task-0")
    ready = _conditions(pod)["Ready"]
    assert (ready["status"], ready["reason"]) == ("False", "PodCompleted")
    assert ready["lastTransitionTime"] == format_time(t0 + timedelta(seconds=3))
    terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    assert terminated == {
        "exitCode": 0,
        "reason": "Completed",
        "startedAt": format_time(t0 + timedelta(seconds=1)),
        "finishedAt": format_time(t0 + timedelta(seconds=3)),
    }


@pytest.mark.django_db
def test_a_crash_looping_pod_shows_crash_loop_back_off_and_its_restarts(
    operator: Client,
) -> None:
    _bound(
        "crash",
        {"restartPolicy": "OnFailure", "containers": CONTAINERS[:1]},
        {"volcano.sh/sim-duration": "2s", "volcano.sh/sim-exit-code": "2"},
    )
    t0 = timezone.now()
    for step in (0, 1, 3):
        tick(now=t0 + timedelta(seconds=step), config=FAST)

    row = _rows(operator)["crash-task-0"]
    assert (row["Ready"], row["Status"], row["Restarts"]) == ("0/1", "CrashLoopBackOff", 1)
    status = _pod(operator, "crash-task-0")["status"]
    assert status["phase"] == "Running"
    (container,) = status["containerStatuses"]
    assert container["lastState"]["terminated"]["exitCode"] == 2
    assert container["state"]["waiting"]["message"].startswith("back-off 10s restarting failed")


@pytest.mark.django_db
def test_an_unscheduled_pod_keeps_only_pod_scheduled_false(operator: Client) -> None:
    Pod.objects.create(
        name="waiting",
        conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                     "lastTransitionTime": "2026-01-01T00:00:00Z"}],
    )  # fmt: skip

    pod = _pod(operator, "waiting")

    assert list(_conditions(pod)) == ["PodScheduled"]
    assert _conditions(pod)["PodScheduled"]["reason"] == "Unschedulable"
    assert "containerStatuses" not in pod["status"]
    assert _rows(operator)["waiting"]["Status"] == "Pending"


@pytest.mark.django_db
def test_deleting_a_running_pod_leaves_it_terminating_until_it_exits(operator: Client) -> None:
    spec = {"terminationGracePeriodSeconds": 45, "containers": CONTAINERS[:1]}
    _bound("victim", spec, {"volcano.sh/sim-ignore-sigterm": "true"})
    t0 = timezone.now()
    tick(now=t0, config=FAST)
    tick(now=t0 + timedelta(seconds=1), config=FAST)

    answer = operator.delete(f"{PODS.format(ns='default')}/victim-task-0")

    assert answer.status_code == 200, answer.content
    shown = answer.json()
    assert shown["metadata"]["deletionGracePeriodSeconds"] == 45
    assert shown["status"]["phase"] == "Running"
    assert _rows(operator)["victim-task-0"]["Status"] == "Terminating"
    pod = Pod.objects.get(name="victim-task-0")
    assert pod.deletion_time is not None
    tick(now=pod.deletion_time + timedelta(seconds=44), config=FAST)
    assert Pod.objects.get(name="victim-task-0").phase == "Running"
    tick(now=pod.deletion_time + timedelta(seconds=45), config=FAST)  # SIGKILL, then gone
    assert not Pod.objects.filter(name="victim-task-0").exists()
    assert operator.get(f"{PODS.format(ns='default')}/victim-task-0").status_code == 404


@pytest.mark.django_db
def test_grace_period_zero_deletes_the_pod_at_once(operator: Client) -> None:
    _bound("gone", {"containers": CONTAINERS[:1]})
    t0 = timezone.now()
    tick(now=t0, config=FAST)
    tick(now=t0 + timedelta(seconds=1), config=FAST)

    answer = operator.delete(f"{PODS.format(ns='default')}/gone-task-0?gracePeriodSeconds=0")

    assert answer.status_code == 200, answer.content
    assert not Pod.objects.filter(name="gone-task-0").exists()


@pytest.mark.django_db
def test_a_malformed_grace_period_is_refused_naming_it(operator: Client) -> None:
    _bound("kept", {"containers": CONTAINERS[:1]})

    answer = operator.delete(f"{PODS.format(ns='default')}/kept-task-0?gracePeriodSeconds=soon")

    assert answer.status_code == 400
    assert "gracePeriodSeconds" in answer.json()["message"]
    assert Pod.objects.get(name="kept-task-0").deletion_time is None
