"""PodDisruptionBudgets through the API: validation, kubectl's columns, the disruption
controller's status, and evictions the budget lets through or refuses with 429."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db.models import F
from django.test import Client
from django.utils import timezone

from core.disruption import reconcile_disruption_budgets
from core.models import Pod, PodDisruptionBudget, PodPhase
from jobs.models import Job
from tests.jobs.controller_kit import start, task
from tests.kube.api_kit import JOBS, PODS

pytestmark = pytest.mark.django_db

JSON = "application/json"
PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
# How the kubelet writes a pod: with a new resourceVersion, which the controllers notice.
_BUMP = F("resource_version") + 1
VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."


def _post(client: Client, path: str, body: Any) -> Any:
    return client.post(path, json.dumps(body), content_type=JSON)


def _pod(client: Client, name: str, *, app: str = "web", running: bool = True) -> None:
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": app}},
        "spec": {"containers": [{"name": "main", "image": "busybox"}]},
    }
    answer = _post(client, PODS.format(ns="default"), body)
    assert answer.status_code == 201, answer.content
    if running:  # the kubelet started it: Running with its container ready
        Pod.objects.filter(name=name).update(
            phase=PodPhase.RUNNING, start_time=timezone.now(), resource_version=_BUMP
        )


def _budget(client: Client, name: str = "web", **spec: Any) -> Any:
    spec.setdefault("selector", {"matchLabels": {"app": "web"}})
    body = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name},
        "spec": spec,
    }
    return _post(client, PDBS, body)


def _status(client: Client, name: str = "web") -> dict[str, Any]:
    reconcile_disruption_budgets(timezone.now())
    answer = client.get(f"{PDBS}/{name}")
    assert answer.status_code == 200, answer.content
    return dict(answer.json()["status"])


def _evict(client: Client, pod: str) -> Any:
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": pod}}
    return _post(client, f"{PODS.format(ns='default')}/{pod}/eviction", body)


def test_the_controller_counts_healthy_pods_against_min_available(operator: Client) -> None:
    for name in ("web-0", "web-1", "web-2"):
        _pod(operator, name)
    _pod(operator, "web-3", running=False)  # Pending: expected, not healthy
    _pod(operator, "other", app="db")
    assert _budget(operator, minAvailable=2).status_code == 201

    status = _status(operator)

    assert {k: status[k] for k in ("expectedPods", "currentHealthy", "desiredHealthy")} == {
        "expectedPods": 4,
        "currentHealthy": 3,
        "desiredHealthy": 2,
    }
    assert status["disruptionsAllowed"] == 1
    assert status["observedGeneration"] == 1
    (condition,) = status["conditions"]
    assert (condition["type"], condition["status"], condition["reason"]) == (
        "DisruptionAllowed",
        "True",
        "SufficientPods",
    )


def test_one_disruption_lets_one_eviction_through_and_refuses_the_next(operator: Client) -> None:
    for name in ("web-0", "web-1", "web-2"):
        _pod(operator, name)
    _budget(operator, minAvailable=2)
    assert _status(operator)["disruptionsAllowed"] == 1

    first = _evict(operator, "web-0")
    second = _evict(operator, "web-1")

    assert first.status_code == 201, first.content
    assert first.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "code": 201,
    }
    assert not Pod.objects.filter(name="web-0").exists()  # on no node: deleted at once
    assert second.status_code == 429, second.content
    refusal = second.json()
    assert (refusal["reason"], refusal["message"]) == ("TooManyRequests", VIOLATION)
    assert refusal["details"]["causes"] == [
        {
            "reason": "DisruptionBudget",
            "message": "The disruption budget web needs 2 healthy pods and has 3 currently",
        }
    ]
    assert Pod.objects.filter(name="web-1").exists()
    budget = PodDisruptionBudget.objects.get(name="web")
    assert budget.disruptions_allowed == 0
    assert list(budget.disrupted_pods) == ["web-0"]
    # The controller sees the pod gone: no disrupted pod left, two healthy, none to spare.
    status = _status(operator)
    assert (status["currentHealthy"], status["disruptionsAllowed"]) == (2, 0)
    assert "disruptedPods" not in status
    assert status["conditions"][0]["reason"] == "InsufficientPods"


def test_the_status_follows_pods_that_come_and_go(operator: Client) -> None:
    _budget(operator, "two", minAvailable=1, selector={"matchLabels": {"app": "two"}})
    _pod(operator, "two-0", app="two")
    assert _status(operator, "two")["disruptionsAllowed"] == 0

    _pod(operator, "two-1", app="two")
    assert _status(operator, "two")["disruptionsAllowed"] == 1
    _pod(operator, "two-2", app="two")
    assert _status(operator, "two")["disruptionsAllowed"] == 2

    Pod.objects.filter(name="two-2").update(phase=PodPhase.FAILED, resource_version=_BUMP)
    status = _status(operator, "two")
    assert (status["expectedPods"], status["currentHealthy"]) == (3, 2)
    assert status["disruptionsAllowed"] == 1


def test_a_budget_over_job_pods_by_percent_fails_to_sync_as_on_a_cluster(
    operator: Client,
) -> None:
    job = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "train"},
        "spec": {"tasks": [task("worker", 2)]},
    }
    assert _post(operator, JOBS.format(ns="default"), job).status_code == 201
    start(Job.objects.get(name="train"))
    selector = {"matchLabels": {"volcano.sh/job-name": "train"}}
    _budget(operator, "train", maxUnavailable="50%", selector=selector)

    status = _status(operator, "train")

    assert status["disruptionsAllowed"] == 0
    (condition,) = status["conditions"]
    assert (condition["status"], condition["reason"]) == ("False", "SyncFailed")
    assert condition["message"] == "jobs.batch.volcano.sh does not implement the scale subresource"


def test_a_pending_pod_is_evicted_whatever_its_budget(operator: Client) -> None:
    _pod(operator, "web-0", running=False)
    _budget(operator, minAvailable="100%")
    _status(operator)

    assert _evict(operator, "web-0").status_code == 201
    assert not Pod.objects.filter(name="web-0").exists()


def test_an_unready_pod_goes_without_a_disruption_when_the_budget_is_healthy(
    operator: Client,
) -> None:
    for name in ("web-0", "web-1"):
        _pod(operator, name)
    _pod(operator, "web-2")
    # Running, its container crashed and backing off: not Ready.
    Pod.objects.filter(name="web-2").update(back_off_until=timezone.now(), resource_version=_BUMP)
    _budget(operator, minAvailable=2)
    assert _status(operator)["disruptionsAllowed"] == 0

    assert _evict(operator, "web-2").status_code == 201
    assert _evict(operator, "web-1").status_code == 429


def test_an_eviction_must_name_its_pod(operator: Client) -> None:
    _pod(operator, "web-0")
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web-9"}}

    answer = _post(operator, f"{PODS.format(ns='default')}/web-0/eviction", body)
    missing = _evict(operator, "nobody")

    assert answer.status_code == 400
    assert answer.json()["message"] == "name in URL does not match name in Eviction object"
    assert missing.status_code == 404


@pytest.mark.parametrize(
    ("spec", "field", "message"),
    [
        (
            {"minAvailable": 1, "maxUnavailable": 1},
            "spec.maxUnavailable",
            "minAvailable and maxUnavailable cannot be both set",
        ),
        ({"minAvailable": "120%"}, "spec.minAvailable", "must not be greater than 100%"),
        ({"maxUnavailable": -1}, "spec.maxUnavailable", "must be greater than or equal to 0"),
        ({"minAvailable": "half"}, "spec.minAvailable", "a valid percent string"),
        (
            {"minAvailable": 1, "unhealthyPodEvictionPolicy": "Never"},
            "spec.unhealthyPodEvictionPolicy",
            'supported values: "AlwaysAllow", "IfHealthyBudget"',
        ),
    ],
)
def test_kube_apiserver_validation(
    operator: Client, spec: dict[str, Any], field: str, message: str
) -> None:
    answer = _budget(operator, **spec)

    assert answer.status_code == 422, answer.content
    (cause,) = answer.json()["details"]["causes"]
    assert cause["field"] == field
    assert message in cause["message"]


def test_kubectl_get_pdb_columns(operator: Client) -> None:
    _pod(operator, "web-0")
    _pod(operator, "web-1")
    _budget(operator, minAvailable=1)
    _budget(operator, "max", maxUnavailable="25%", selector={"matchLabels": {"app": "none"}})
    reconcile_disruption_budgets(timezone.now())

    table = operator.get(PDBS, headers={"accept": TABLE}).json()

    names = [c["name"] for c in table["columnDefinitions"]]
    assert names == ["Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"]
    rows = {row["cells"][0]: row["cells"][1:4] for row in table["rows"]}
    assert rows == {"web": ["1", "N/A", 1], "max": ["N/A", "25%", 0]}


def test_discovery_lists_pods_eviction_and_pdb(operator: Client) -> None:
    core = operator.get("/api/v1").json()["resources"]
    policy = operator.get("/apis/policy/v1").json()["resources"]

    eviction = next(r for r in core if r["name"] == "pods/eviction")
    assert eviction == {
        "name": "pods/eviction",
        "singularName": "",
        "namespaced": True,
        "group": "policy",
        "version": "v1",
        "kind": "Eviction",
        "verbs": ["create"],
    }
    pdb = next(r for r in policy if r["name"] == "poddisruptionbudgets")
    assert pdb["shortNames"] == ["pdb"]
    assert any(r["name"] == "poddisruptionbudgets/status" for r in policy)


def test_an_empty_selector_guards_every_pod_of_the_namespace(operator: Client) -> None:
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "bare"},
        "spec": {"containers": [{"name": "main", "image": "busybox"}]},
    }
    assert _post(operator, PODS.format(ns="default"), body).status_code == 201
    Pod.objects.filter(name="bare").update(phase=PodPhase.RUNNING, resource_version=_BUMP)
    _budget(operator, "all", minAvailable=1, selector={})
    _budget(operator, "none", minAvailable=1, selector=None)

    assert (
        _status(operator, "all")["expectedPods"],
        _status(operator, "none")["expectedPods"],
    ) == (1, 0)
    refused = _evict(operator, "bare")

    assert refused.status_code == 429
    assert "The disruption budget all needs 1" in refused.json()["details"]["causes"][0]["message"]


def test_a_budget_whose_spec_changed_waits_for_the_controller(operator: Client) -> None:
    for name in ("web-0", "web-1"):
        _pod(operator, name)
    _budget(operator, minAvailable=0)
    assert _status(operator)["disruptionsAllowed"] == 2
    patch = {"spec": {"minAvailable": 1}}
    changed = operator.patch(
        f"{PDBS}/web", json.dumps(patch), content_type="application/merge-patch+json"
    )
    assert changed.json()["metadata"]["generation"] == 2

    refused = _evict(operator, "web-0")

    assert refused.status_code == 429
    assert refused["Retry-After"] == "10"
    assert refused.json()["details"] == {
        "causes": [
            {
                "reason": "DisruptionBudget",
                "message": "The disruption budget web is still being processed by the server.",
            }
        ],
        "retryAfterSeconds": 10,
    }
    status = _status(operator)
    assert (status["observedGeneration"], status["disruptionsAllowed"]) == (2, 1)
    assert _evict(operator, "web-0").status_code == 201


def test_a_dry_run_eviction_takes_nothing(operator: Client) -> None:
    for name in ("web-0", "web-1"):
        _pod(operator, name)
    _budget(operator, minAvailable=1)
    _status(operator)
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web-0"},
            "deleteOptions": {"dryRun": ["All"]}}  # fmt: skip

    answer = _post(operator, f"{PODS.format(ns='default')}/web-0/eviction", body)

    assert answer.status_code == 201
    assert Pod.objects.filter(name="web-0").exists()
    assert PodDisruptionBudget.objects.get(name="web").disruptions_allowed == 1
