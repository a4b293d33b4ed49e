"""Owner references and finalizers, kept and honoured as kube-apiserver does for every kind."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from core.models import Pod, PriorityClass
from kube.models import OwnerLink
from queues.models import PodGroup, Queue
from tests.kube.api_kit import JOBS, PODGROUPS, PODS, PRIORITY_CLASSES, QUEUES, watch_events

pytestmark = pytest.mark.django_db

JSON = "application/json"
MERGE = "application/merge-patch+json"


def _post(client: Client, url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(url, json.dumps(body), content_type=JSON)
    assert response.status_code == 201, response.content
    created: dict[str, Any] = response.json()
    return created


def _ref(owner: dict[str, Any], **flags: bool) -> dict[str, Any]:
    meta = owner["metadata"]
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": meta["name"],
            "uid": meta["uid"], **flags}  # fmt: skip


def _pod_group(client: Client, name: str, **meta: Any) -> dict[str, Any]:
    body = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, **meta}, "spec": {"minMember": 1}}  # fmt: skip
    return _post(client, PODGROUPS.format(ns="default"), body)


def _pod(client: Client, name: str, **meta: Any) -> dict[str, Any]:
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}  # fmt: skip
    return _post(client, PODS.format(ns="default"), body)


def _job(client: Client, name: str = "train") -> dict[str, Any]:
    body = {
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name},
        "spec": {"minAvailable": 1, "tasks": [{"name": "m", "replicas": 1, "template": {
            "spec": {"containers": [{"name": "m", "image": "busybox"}]}}}]},
    }  # fmt: skip
    return _post(client, JOBS.format(ns="default"), body)


def _queue(client: Client, name: str, **meta: Any) -> dict[str, Any]:
    body = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": name, **meta}, "spec": {"weight": 1}}  # fmt: skip
    return _post(client, QUEUES, body)


def _priority_class(client: Client, name: str, **meta: Any) -> dict[str, Any]:
    body = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name, **meta}, "value": 10}  # fmt: skip
    return _post(client, PRIORITY_CLASSES, body)


def _delete(client: Client, url: str, policy: str = "") -> Any:
    options = {"apiVersion": "v1", "kind": "DeleteOptions"}
    if policy:
        options["propagationPolicy"] = policy
    return client.delete(url, json.dumps(options), content_type=JSON)


def test_every_kind_keeps_the_owner_references_and_finalizers_it_was_sent(
    operator: Client,
) -> None:
    owner = _queue(operator, "owner")
    ref = _ref(owner, controller=True, blockOwnerDeletion=True)
    created = _priority_class(
        operator, "batch-high", ownerReferences=[ref], finalizers=["example.com/keep"]
    )
    assert created["metadata"]["ownerReferences"] == [ref]
    assert created["metadata"]["finalizers"] == ["example.com/keep"]

    got = operator.get(f"{PRIORITY_CLASSES}/batch-high").json()
    assert got["metadata"]["ownerReferences"] == [ref]
    assert got["metadata"]["finalizers"] == ["example.com/keep"]
    yaml_text = operator.get(f"{PRIORITY_CLASSES}/batch-high", HTTP_ACCEPT="application/yaml")
    assert b"example.com/keep" in yaml_text.content
    assert owner["metadata"]["uid"].encode() in yaml_text.content
    table = operator.get(
        PRIORITY_CLASSES,
        HTTP_ACCEPT="application/json;as=Table;v=v1;g=meta.k8s.io",
    ).json()
    row = next(r for r in table["rows"] if r["object"]["metadata"]["name"] == "batch-high")
    assert row["object"]["metadata"]["ownerReferences"] == [ref]
    assert OwnerLink.objects.filter(owner_uid=owner["metadata"]["uid"]).count() == 1


def test_a_pod_of_a_job_shows_the_job_as_its_controller_beside_its_other_owners(
    operator: Client,
) -> None:
    job = _job(operator)
    group = _pod_group(operator, "extra")
    pod = _pod(operator, "p", ownerReferences=[_ref(job, controller=True), _ref(group)])
    refs = pod["metadata"]["ownerReferences"]
    assert [(r["kind"], r["name"]) for r in refs] == [("Job", "train"), ("PodGroup", "extra")]
    assert refs[0]["controller"] is True
    assert refs[0]["uid"] == job["metadata"]["uid"]


@dataclass(frozen=True)
class BadRefCase:
    name: str
    meta: dict[str, Any]
    field: str


_OWNER = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "name": "q",
          "uid": "7b1f6a52-2c52-4c8b-9d8a-3f0e2a4c5b6d"}  # fmt: skip
BAD_REFS = [
    BadRefCase("no uid", {"ownerReferences": [{**_OWNER, "uid": ""}]},
               "metadata.ownerReferences[0].uid"),
    BadRefCase("no kind", {"ownerReferences": [{k: v for k, v in _OWNER.items() if k != "kind"}]},
               "metadata.ownerReferences[0].kind"),
    BadRefCase("no apiVersion", {"ownerReferences": [
        {k: v for k, v in _OWNER.items() if k != "apiVersion"}]},
               "metadata.ownerReferences[0].apiVersion"),
    BadRefCase("unknown field", {"ownerReferences": [{**_OWNER, "namespace": "default"}]},
               "metadata.ownerReferences[0].namespace"),
    BadRefCase("two controllers", {"ownerReferences": [
        {**_OWNER, "controller": True}, {**_OWNER, "name": "r", "controller": True}]},
               "metadata.ownerReferences"),
    BadRefCase("finalizer not a qualified name", {"finalizers": ["ok.io/a", "not/a/name"]},
               "metadata.finalizers[1]"),
]  # fmt: skip


@pytest.mark.parametrize("case", BAD_REFS, ids=lambda c: c.name)
def test_invalid_owner_references_and_finalizers_are_refused_naming_the_field(
    operator: Client, case: BadRefCase
) -> None:
    body = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": "bad", **case.meta}, "spec": {"weight": 1}}  # fmt: skip
    response = operator.post(QUEUES, json.dumps(body), content_type=JSON)
    assert response.status_code == 422, response.content
    assert response.json()["details"]["causes"][0]["field"] == case.field
    assert not Queue.objects.filter(name="bad").exists()


def test_a_dependent_goes_when_its_only_owner_is_deleted(operator: Client) -> None:
    group = _pod_group(operator, "owner")
    _pod(operator, "dependent", ownerReferences=[_ref(group)])
    version = operator.get(PODS.format(ns="default")).json()["metadata"]["resourceVersion"]
    events = watch_events(
        operator.get(f"{PODS.format(ns='default')}?watch=1&resourceVersion={version}"
                     "&timeoutSeconds=1")
    )  # fmt: skip

    assert _delete(operator, f"{PODGROUPS.format(ns='default')}/owner").status_code == 200

    assert not PodGroup.objects.filter(name="owner").exists()
    assert not Pod.objects.filter(name="dependent").exists()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("DELETED", "dependent")
    ]
    assert not OwnerLink.objects.exists()


def test_a_cluster_scoped_dependent_goes_with_its_owner(operator: Client) -> None:
    owner = _queue(operator, "owner")
    _priority_class(operator, "owned", ownerReferences=[_ref(owner)])
    assert _delete(operator, f"{QUEUES}/owner").status_code == 200
    assert not PriorityClass.objects.filter(name="owned").exists()


def test_a_dependent_with_another_live_owner_stays_without_the_gone_one(operator: Client) -> None:
    first, second = _pod_group(operator, "first"), _pod_group(operator, "second")
    _pod(operator, "shared", ownerReferences=[_ref(first), _ref(second)])

    _delete(operator, f"{PODGROUPS.format(ns='default')}/first")

    pod = operator.get(f"{PODS.format(ns='default')}/shared").json()
    assert [r["name"] for r in pod["metadata"]["ownerReferences"]] == ["second"]
    _delete(operator, f"{PODGROUPS.format(ns='default')}/second")
    assert not Pod.objects.filter(name="shared").exists()


def test_a_pod_of_a_deleted_job_is_collected_and_orphan_keeps_it(operator: Client) -> None:
    for name in ("gone", "kept"):
        job = _job(operator, name)
        _pod(operator, f"{name}-pod", ownerReferences=[_ref(job, controller=True)])

    assert _delete(operator, f"{JOBS.format(ns='default')}/gone").status_code == 200
    assert not Pod.objects.filter(name="gone-pod").exists()

    assert _delete(operator, f"{JOBS.format(ns='default')}/kept", "Orphan").status_code == 200
    pod = operator.get(f"{PODS.format(ns='default')}/kept-pod").json()
    assert "ownerReferences" not in pod["metadata"]
    assert Pod.objects.get(name="kept-pod").job_id is None


def test_orphan_leaves_the_dependents_and_strips_the_reference(operator: Client) -> None:
    group = _pod_group(operator, "owner")
    _pod(operator, "dependent", ownerReferences=[_ref(group)], labels={"app": "x"})

    response = operator.delete(f"{PODGROUPS.format(ns='default')}/owner?propagationPolicy=Orphan")

    assert response.status_code == 200
    pod = operator.get(f"{PODS.format(ns='default')}/dependent").json()
    assert "ownerReferences" not in pod["metadata"]
    assert not OwnerLink.objects.exists()


def test_finalizers_keep_a_deleted_object_terminating_until_they_are_removed(
    operator: Client,
) -> None:
    _queue(operator, "held", finalizers=["example.com/a", "example.com/b"])
    url = f"{QUEUES}/held"
    version = operator.get(QUEUES).json()["metadata"]["resourceVersion"]
    events = watch_events(
        operator.get(f"{QUEUES}?watch=1&resourceVersion={version}&timeoutSeconds=1")
    )

    answer = _delete(operator, url)
    assert answer.status_code == 200
    assert answer.json()["metadata"]["deletionTimestamp"]
    assert answer.json()["metadata"]["deletionGracePeriodSeconds"] == 0
    assert Queue.objects.get(name="held").deletion_timestamp is not None
    marked = next(events)
    assert marked["type"] == "MODIFIED"
    assert marked["object"]["metadata"]["deletionTimestamp"]

    spec = operator.patch(url, json.dumps({"spec": {"weight": 5}}), content_type=MERGE)
    assert spec.status_code == 422, spec.content
    assert spec.json()["details"]["causes"][0]["field"] == "spec"
    more = operator.patch(
        url,
        json.dumps({"metadata": {"finalizers": ["example.com/a", "example.com/b", "x.io/c"]}}),
        content_type=MERGE,
    )
    assert more.status_code == 422
    assert more.json()["details"]["causes"][0]["field"] == "metadata.finalizers"

    one = operator.patch(
        url, json.dumps({"metadata": {"finalizers": ["example.com/b"]}}), content_type=MERGE
    )
    assert one.status_code == 200
    assert Queue.objects.filter(name="held").exists()
    assert next(events)["object"]["metadata"]["finalizers"] == ["example.com/b"]
    last = operator.patch(url, json.dumps({"metadata": {"finalizers": None}}), content_type=MERGE)
    assert last.status_code == 200
    assert not Queue.objects.filter(name="held").exists()
    assert operator.get(url).status_code == 404
    assert [e["type"] for e in events] == ["DELETED"]


def test_an_owner_held_by_finalizers_keeps_its_dependents_until_it_goes(operator: Client) -> None:
    group = _pod_group(operator, "owner", finalizers=["example.com/hold"])
    _pod(operator, "dependent", ownerReferences=[_ref(group)])
    url = f"{PODGROUPS.format(ns='default')}/owner"

    _delete(operator, url)
    assert Pod.objects.filter(name="dependent").exists()

    operator.patch(url, json.dumps({"metadata": {"finalizers": []}}), content_type=MERGE)
    assert not PodGroup.objects.filter(name="owner").exists()
    assert not Pod.objects.filter(name="dependent").exists()


def test_a_command_as_vcctl_builds_it_suspends_the_job_it_is_owned_by(operator: Client) -> None:
    from django.utils import timezone

    from jobs.controller.reconcile import reconcile_job
    from jobs.models import Job

    job = _job(operator, "long")
    owner = _ref(job, controller=True, blockOwnerDeletion=True)
    command = {
        "apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
        "metadata": {"generateName": "long-abortjob-", "namespace": "default",
                     "ownerReferences": [owner]},
        "action": "AbortJob",
        "target": {k: owner[k] for k in ("apiVersion", "kind", "name", "uid")},
    }  # fmt: skip
    created = _post(operator, "/apis/bus.volcano.sh/v1alpha1/namespaces/default/commands", command)
    assert created["metadata"]["ownerReferences"] == [owner]

    reconcile_job(Job.objects.get(name="long").pk, timezone.now())

    assert Job.objects.get(name="long").phase == "Aborting"


def test_a_namespace_stays_terminating_while_an_object_in_it_holds_finalizers(
    operator: Client,
) -> None:
    from core.models import Namespace

    _post(operator, "/api/v1/namespaces",
          {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})  # fmt: skip
    body = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": "held", "finalizers": ["example.com/hold"]},
            "spec": {"minMember": 1}}  # fmt: skip
    _post(operator, PODGROUPS.format(ns="team"), body)

    answer = _delete(operator, "/api/v1/namespaces/team")
    assert answer.json()["status"]["phase"] == "Terminating"
    assert answer.json()["metadata"]["deletionTimestamp"]
    assert Namespace.objects.filter(name="team").exists()
    assert PodGroup.objects.get(name="held").deletion_timestamp is not None

    operator.patch(
        f"{PODGROUPS.format(ns='team')}/held",
        json.dumps({"metadata": {"finalizers": []}}),
        content_type=MERGE,
    )
    assert not PodGroup.objects.filter(name="held").exists()
    assert not Namespace.objects.filter(name="team").exists()
