"""Pods outside VolcanoJobs, as kubectl creates them: an implicit PodGroup, a gang of one.

Volcano's PodGroup controller gives a pod with ``schedulerName: volcano`` and no PodGroup a
group ``podgroup-<uid>``; the scheduler then places it like any gang. Scheduling gates hold a
pod back until they are removed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from core.models import Node, Pod
from queues.models import PodGroup, Queue
from scheduler.models import SessionRecord
from scheduler.worker import run_once
from tests.jobs.controller_kit import set_pods, start, submit
from tests.kube.api_kit import PODGROUPS, PODS

pytestmark = pytest.mark.django_db

JSON = "application/json"
MERGE = "application/merge-patch+json"
GI = 1024**3 * 1000


def _node(name: str = "n1", cpu: int = 4) -> Node:
    alloc = {"cpu": cpu * 1000, "memory": 8 * GI, "pods": 110_000}
    return Node.objects.create(name=name, allocatable=alloc, capacity=alloc)


def _pod(name: str, *, annotations: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    container = {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
    meta: dict[str, Any] = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"schedulerName": "volcano", "containers": [container], **spec},
    }


def _create(client: Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(PODS.format(ns="default"), json.dumps(body), content_type=JSON)
    assert response.status_code == 201, response.content
    shown: dict[str, Any] = response.json()
    return shown


def _get(client: Client, name: str) -> dict[str, Any]:
    response = client.get(f"{PODS.format(ns='default')}/{name}")
    assert response.status_code == 200, response.content
    shown: dict[str, Any] = response.json()
    return shown


def test_a_bare_pod_gets_its_podgroup_as_volcanos_controller_makes_it(operator: Client) -> None:
    uid = _create(operator, _pod("bare"))["metadata"]["uid"]

    run_once()

    group = operator.get(f"{PODGROUPS.format(ns='default')}/podgroup-{uid}").json()
    assert group["spec"]["queue"] == "default"
    assert group["spec"]["minMember"] == 1
    assert group["spec"]["minResources"]["cpu"] == "1"
    owner = group["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"]) == ("Pod", "bare", uid)
    assert owner["controller"] is True
    pod = _get(operator, "bare")
    assert pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == f"podgroup-{uid}"


def test_the_queue_annotation_and_priority_class_go_to_the_podgroup(operator: Client) -> None:
    Queue.objects.create(name="research")
    body = _pod(
        "annotated",
        annotations={"scheduling.volcano.sh/queue-name": "research"},
        priorityClassName="system-cluster-critical",
    )
    uid = _create(operator, body)["metadata"]["uid"]

    run_once()

    group = PodGroup.objects.get(name=f"podgroup-{uid}")
    assert (group.queue, group.priority_class_name) == ("research", "system-cluster-critical")


def test_pods_of_one_controller_share_one_podgroup(operator: Client) -> None:
    owner = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": "web-5d8f",
        "uid": "0b6c2a9e-4f1d-4a8e-9c3e-2f7d1e5a6b40",
        "controller": True,
    }
    for name in ("web-5d8f-a", "web-5d8f-b"):
        body = _pod(name)
        body["metadata"]["ownerReferences"] = [owner]
        _create(operator, body)

    run_once()

    group = PodGroup.objects.get(name=f"podgroup-{owner['uid']}")
    assert sorted(group.pods.values_list("name", flat=True)) == ["web-5d8f-a", "web-5d8f-b"]


def test_a_bare_pod_is_scheduled_as_a_gang_of_one(operator: Client) -> None:
    _node()
    uid = _create(operator, _pod("solo"))["metadata"]["uid"]

    run_once()

    assert _get(operator, "solo")["spec"].get("nodeName") == "n1"
    assert PodGroup.objects.get(name=f"podgroup-{uid}").phase in ("Inqueue", "Running")


def test_deleting_the_pod_collects_its_podgroup(operator: Client) -> None:
    uid = _create(operator, _pod("short"))["metadata"]["uid"]
    run_once()
    assert PodGroup.objects.filter(name=f"podgroup-{uid}").exists()

    operator.delete(f"{PODS.format(ns='default')}/short")

    assert not PodGroup.objects.filter(name=f"podgroup-{uid}").exists()


def test_a_pod_of_another_scheduler_gets_no_podgroup(operator: Client) -> None:
    _create(operator, _pod("kube", schedulerName="default-scheduler"))

    run_once()

    assert Pod.objects.get(name="kube").pod_group_id is None
    assert not PodGroup.objects.exists()


def test_the_session_record_counts_only_real_jobs() -> None:
    """Finished pods whose PodGroup is gone are no jobs of their own (they were counted thrice)."""
    _node(cpu=16)
    done = submit("done")
    start(done)
    set_pods(done, "Succeeded", exit_code=0)
    PodGroup.objects.filter(job=done).delete()  # what the controller does to a finished job
    live = submit("live")
    start(live)

    summary = run_once(reconcile=False)

    assert summary.record is not None
    assert summary.record.job_count == 1 == PodGroup.objects.count()
    assert SessionRecord.objects.latest("started_at").job_count == 1


# --- scheduling gates --------------------------------------------------------------------------


def test_a_gated_pod_waits_and_says_why(operator: Client) -> None:
    _node()
    _create(operator, _pod("gated", schedulingGates=[{"name": "example.com/quota"}]))

    run_once()
    run_once()

    pod = _get(operator, "gated")
    assert "nodeName" not in pod["spec"]
    scheduled = next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")
    assert (scheduled["status"], scheduled["reason"]) == ("False", "SchedulingGated")
    assert scheduled["message"] == "Scheduling is blocked due to non-empty scheduling gates"
    group = PodGroup.objects.get(pods__name="gated")
    assert any("SchedulingGated" in str(c.get("message", "")) for c in group.conditions)
    # kubectl get pods shows it in STATUS, as kubectl 1.27+ prints a gated pod
    table = operator.get(
        PODS.format(ns="default"),
        headers={"accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"},
    ).json()
    columns = [c["name"] for c in table["columnDefinitions"]]
    row = next(r["cells"] for r in table["rows"] if r["cells"][0] == "gated")
    assert row[columns.index("Status")] == "SchedulingGated"


def test_removing_the_gates_lets_the_pod_be_scheduled(operator: Client) -> None:
    _node()
    _create(operator, _pod("gated", schedulingGates=[{"name": "a"}, {"name": "b"}]))
    run_once()
    url = f"{PODS.format(ns='default')}/gated"

    one_left = {"spec": {"schedulingGates": [{"name": "b"}]}}
    assert operator.patch(url, json.dumps(one_left), content_type=MERGE).status_code == 200
    run_once()
    assert "nodeName" not in _get(operator, "gated")["spec"]

    none_left = {"spec": {"schedulingGates": None}}
    assert operator.patch(url, json.dumps(none_left), content_type=MERGE).status_code == 200
    run_once()

    assert _get(operator, "gated")["spec"]["nodeName"] == "n1"


def test_adding_a_gate_is_refused_as_kubernetes_does(operator: Client) -> None:
    _node()
    _create(operator, _pod("running"))
    run_once()
    url = f"{PODS.format(ns='default')}/running"

    body = {"spec": {"schedulingGates": [{"name": "late"}]}}
    response = operator.patch(url, json.dumps(body), content_type=MERGE)

    assert response.status_code == 422, response.content
    assert (
        "only deletion is allowed, but found new scheduling gate 'late'"
        in response.json()["message"]
    )
    assert not Pod.objects.get(name="running").spec.get("schedulingGates")


def test_a_pod_naming_a_group_that_comes_later_joins_it(operator: Client) -> None:
    _node()
    _create(operator, _pod("early", annotations={"scheduling.k8s.io/group-name": "late-group"}))
    run_once()
    assert _get(operator, "early")["metadata"]["annotations"] == {
        "scheduling.k8s.io/group-name": "late-group"
    }
    assert not PodGroup.objects.exists()  # no implicit group for a pod that names one

    body = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "late-group"},
        "spec": {"minMember": 1},
    }
    created = operator.post(PODGROUPS.format(ns="default"), json.dumps(body), content_type=JSON)
    assert created.status_code == 201, created.content
    run_once()

    assert Pod.objects.get(name="early").pod_group == PodGroup.objects.get(name="late-group")
    assert _get(operator, "early")["spec"]["nodeName"] == "n1"
