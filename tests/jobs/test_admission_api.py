"""Every admission refusal reaches API clients as 422 Invalid with the field path of each cause."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from jobs.models import Job
from queues.models import Queue
from tests.kube.api_kit import JOBS, example


@dataclass(frozen=True)
class Case:
    name: str
    change: Callable[[dict[str, Any]], None]
    fields: list[str]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(manifest: dict[str, Any]) -> None:
        target: Any = manifest
        parts = path.split(".")
        for part in parts[:-1]:
            target = target[int(part)] if part.isdigit() else target.setdefault(part, {})
        last = parts[-1]
        if last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value

    return change


def _duplicate_task(manifest: dict[str, Any]) -> None:
    manifest["spec"]["tasks"].append(copy.deepcopy(manifest["spec"]["tasks"][0]))


JOB_CASES = [
    Case("min-available-above-replicas", _set("spec.minAvailable", 5), ["spec.minAvailable"]),
    Case("negative-replicas", _set("spec.tasks.0.replicas", -1), ["spec.tasks[0].replicas"]),
    Case(
        "task-min-available-above-replicas",
        _set("spec.tasks.0.minAvailable", 4),
        ["spec.tasks[0].minAvailable"],
    ),
    Case("no-tasks", _set("spec.tasks", []), ["spec.tasks"]),
    Case("duplicate-task-name", _duplicate_task, ["spec.tasks[1].name"]),
    Case("unknown-queue", _set("spec.queue", "nowhere"), ["spec.queue"]),
    Case("replicas-not-a-number", _set("spec.tasks.0.replicas", "two"), ["spec.tasks[0].replicas"]),
    Case("unknown-field", _set("spec.minAvaliable", 1), ["spec.minAvaliable"]),
    Case(
        "bad-policy-event",
        _set("spec.policies", [{"event": "Nope", "action": "RestartJob"}]),
        ["spec.policies[0].event"],
    ),
    Case("bad-name", _set("metadata.name", "Job_1"), ["metadata.name"]),
]


@pytest.mark.parametrize("case", JOB_CASES, ids=lambda c: c.name)
def test_invalid_job_is_422_naming_each_field(operator: Client, case: Case) -> None:
    manifest = example("jobs/nginx-sleep.yaml")
    manifest["spec"]["queue"] = "default"
    case.change(manifest)

    response = operator.post(
        JOBS.format(ns="default"), json.dumps(manifest), content_type="application/json"
    )

    assert response.status_code == 422, response.content
    body = response.json()
    assert (body["kind"], body["reason"], body["code"]) == ("Status", "Invalid", 422)
    assert [cause["field"] for cause in body["details"]["causes"]] == case.fields
    assert all(cause["reason"].startswith("Field") for cause in body["details"]["causes"])
    assert not Job.objects.exists()


def test_dry_run_runs_admission_too(operator: Client) -> None:
    manifest = example("jobs/nginx-sleep.yaml")
    manifest["spec"]["queue"] = "default"
    manifest["spec"]["minAvailable"] = 7

    response = operator.post(
        JOBS.format(ns="default") + "?dryRun=All",
        json.dumps(manifest),
        content_type="application/json",
    )

    assert response.status_code == 422
    assert response.json()["details"]["causes"][0]["field"] == "spec.minAvailable"


def test_job_to_a_closed_queue_is_refused_on_spec_queue(operator: Client) -> None:
    Queue.objects.create(name="shut", state="Closed")
    manifest = example("jobs/nginx-sleep.yaml")
    manifest["spec"]["queue"] = "shut"

    response = operator.post(
        JOBS.format(ns="default"), json.dumps(manifest), content_type="application/json"
    )

    assert response.status_code == 422
    assert [c["field"] for c in response.json()["details"]["causes"]] == ["spec.queue"]
