"""Scheduler configuration versions on the API (get, replace, patch, list, activate) and a pod's
log."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import yaml
from django.test import Client
from django.utils import timezone

from core.models import Event, Node, Pod
from scheduler.models import SchedulerConfiguration
from tests.kube.api_kit import CONFIGURATIONS, example_text


def _conf_body(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "scheduler.volcano.sh/v1alpha1",
        "kind": "SchedulerConfiguration",
        "spec": {"conf": example_text(f"scheduler-conf/{name}"), "comment": "try binpack"},
    }


def test_get_active_configuration(operator: Client) -> None:
    response = operator.get(f"{CONFIGURATIONS}/active")

    assert response.status_code == 200
    body = response.json()
    assert body["kind"] == "SchedulerConfiguration"
    assert body["status"]["active"] is True
    assert "actions" in body["spec"]["conf"]


def test_replace_stores_a_new_active_version_and_keeps_the_old(operator: Client) -> None:
    before = SchedulerConfiguration.objects.count()

    response = operator.put(
        f"{CONFIGURATIONS}/active",
        json.dumps(_conf_body("preempt-binpack.conf")),
        content_type="application/json",
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == {"version": before + 1, "active": True, "author": "olga"}
    assert SchedulerConfiguration.objects.count() == before + 1
    versions = operator.get(CONFIGURATIONS).json()["items"]
    assert [v["status"]["active"] for v in versions] == [True] + [False] * before


def test_volcano_configmap_is_accepted_as_a_body(operator: Client) -> None:
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
        "data": {"volcano-scheduler.conf": example_text("scheduler-conf/reclaim-overcommit.conf")},
    }

    response = operator.put(
        f"{CONFIGURATIONS}/active", yaml.safe_dump(configmap), content_type="application/yaml"
    )

    assert response.status_code == 200, response.content
    assert "reclaim" in response.json()["spec"]["conf"]


def test_activate_an_earlier_version_rolls_back(operator: Client) -> None:
    first = operator.get(f"{CONFIGURATIONS}/active").json()["status"]["version"]
    operator.put(
        f"{CONFIGURATIONS}/active",
        json.dumps(_conf_body("preempt-binpack.conf")),
        content_type="application/json",
    )

    response = operator.post(f"{CONFIGURATIONS}/v{first}/activate")

    assert response.status_code == 200
    assert SchedulerConfiguration.objects.get(is_active=True).version == first


def test_post_stores_an_inactive_version(operator: Client) -> None:
    response = operator.post(
        CONFIGURATIONS,
        json.dumps(_conf_body("preempt-binpack.conf")),
        content_type="application/json",
    )

    assert response.status_code == 201
    assert response.json()["status"]["active"] is False


def test_conf_the_engine_refuses_is_422_naming_the_field(operator: Client) -> None:
    before = SchedulerConfiguration.objects.count()
    body = _conf_body("default.conf")
    body["spec"]["conf"] = 'actions: "allocate"\ntiers:\n- plugins:\n  - name: nosuchplugin\n'

    response = operator.put(
        f"{CONFIGURATIONS}/active", json.dumps(body), content_type="application/json"
    )

    assert response.status_code == 422
    cause = response.json()["details"]["causes"][0]
    assert cause["field"] == "spec.conf"
    assert "nosuchplugin" in cause["message"]
    assert SchedulerConfiguration.objects.count() == before


def test_a_field_the_kind_does_not_have_is_422_naming_it(operator: Client) -> None:
    before = SchedulerConfiguration.objects.count()
    body = _conf_body("preempt-binpack.conf")
    body["spec"]["confs"] = body["spec"].pop("comment")
    body["extra"] = 1

    response = operator.put(
        f"{CONFIGURATIONS}/active", json.dumps(body), content_type="application/json"
    )

    assert response.status_code == 422
    causes = response.json()["details"]["causes"]
    assert [(c["field"], c["message"]) for c in causes] == [
        ("extra", "unknown field"),
        ("spec.confs", "unknown field"),
    ]
    assert SchedulerConfiguration.objects.count() == before


def test_patch_of_the_active_one_stores_and_activates_a_new_version(operator: Client) -> None:
    before = SchedulerConfiguration.objects.count()
    conf = example_text("scheduler-conf/preempt-binpack.conf")

    merged = operator.patch(
        f"{CONFIGURATIONS}/active",
        json.dumps({"spec": {"conf": conf, "comment": "binpack"}}),
        content_type="application/merge-patch+json",
    )
    assert merged.status_code == 200, merged.content
    assert merged.json()["status"] == {"version": before + 1, "active": True, "author": "olga"}
    assert merged.json()["spec"] == {"conf": conf, "comment": "binpack"}

    patched = operator.patch(
        f"{CONFIGURATIONS}/active",
        json.dumps([{"op": "replace", "path": "/spec/conf", "value": "# v2\n" + conf}]),
        content_type="application/json-patch+json",
    )
    assert patched.status_code == 200, patched.content
    assert patched.json()["status"]["version"] == before + 2
    assert SchedulerConfiguration.objects.get(is_active=True).text.startswith("# v2\n")


def test_patch_is_refused_as_kube_apiserver_refuses_it(operator: Client) -> None:
    before = SchedulerConfiguration.objects.count()
    merge = "application/merge-patch+json"
    stored = operator.patch(f"{CONFIGURATIONS}/v1", "{}", content_type=merge)
    assert stored.status_code == 405
    strategic = operator.patch(
        f"{CONFIGURATIONS}/active", "{}", content_type="application/strategic-merge-patch+json"
    )
    assert strategic.status_code == 415
    unknown = operator.patch(
        f"{CONFIGURATIONS}/active", json.dumps({"spec": {"bogus": 1}}), content_type=merge
    )
    assert unknown.status_code == 422
    assert unknown.json()["details"]["causes"][0]["field"] == "spec.bogus"
    assert SchedulerConfiguration.objects.count() == before


def test_dry_run_replace_stores_nothing(operator: Client) -> None:
    before = SchedulerConfiguration.objects.count()

    response = operator.put(
        f"{CONFIGURATIONS}/active?dryRun=All",
        json.dumps(_conf_body("preempt-binpack.conf")),
        content_type="application/json",
    )

    assert response.status_code == 200
    assert SchedulerConfiguration.objects.count() == before


def test_unknown_version_is_404(operator: Client) -> None:
    assert operator.get(f"{CONFIGURATIONS}/v999").status_code == 404


def test_pod_log_shows_the_recorded_run(operator: Client) -> None:
    node = Node.objects.create(name="node-1")
    start = timezone.now() - dt.timedelta(minutes=2)
    pod = Pod.objects.create(
        namespace="default",
        name="job-1-nginx-0",
        node=node,
        phase="Failed",
        reason="Error",
        exit_code=3,
        start_time=start,
        finish_time=start + dt.timedelta(seconds=30),
    )
    Event.objects.create(
        namespace="default",
        name="job-1-nginx-0.1",
        involved_kind="Pod",
        involved_namespace="default",
        involved_name=pod.name,
        involved_uid=pod.uid,
        reason="Scheduled",
        message="Successfully assigned default/job-1-nginx-0 to node-1",
        first_timestamp=start,
        last_timestamp=start,
    )

    response = operator.get("/api/v1/namespaces/default/pods/job-1-nginx-0/log")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert "Scheduled: Successfully assigned default/job-1-nginx-0 to node-1" in lines[0]
    assert lines[1].endswith("started on node node-1")
    assert lines[2].endswith("container exited with code 3")
    assert lines[3] == "phase Failed (Error)"


def test_log_of_a_missing_pod_is_404(operator: Client) -> None:
    response = operator.get("/api/v1/namespaces/default/pods/nothing/log")

    assert response.status_code == 404
    assert response.json()["kind"] == "Status"
