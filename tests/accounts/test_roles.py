"""Who may do what: role by endpoint by verb, and refused calls write nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import models
from django.test import Client

from accounts.models import ApiToken
from accounts.services import token_revoke
from core.models import Namespace, Node, Pod, PriorityClass
from jobs.models import Command, Job, TaskSpec
from queues.models import Queue
from scheduler.models import SchedulerConfiguration
from tests.kube.api_kit import (
    AUDIT,
    COMMANDS,
    CONFIGURATIONS,
    JOBS,
    NODES,
    PODS,
    PRIORITY_CLASSES,
    QUEUES,
    example,
    example_text,
    token_client,
)

ROLES = ("anonymous", "nobody", "viewer", "submitter", "operator", "admin")


def _job(name: str = "job-2", namespace: str = "default") -> str:
    manifest = example("jobs/nginx-sleep.yaml")
    manifest["metadata"].update(name=name, namespace=namespace)
    manifest["spec"]["queue"] = "default"
    return json.dumps(manifest)


def _queue() -> str:
    return json.dumps(example("queues/test.yaml"))


def _node() -> str:
    return json.dumps(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-9"}, "status": {}}
    )


def _pod() -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "pod-9", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        }
    )


def _command() -> str:
    return json.dumps(
        {
            "apiVersion": "bus.volcano.sh/v1alpha1",
            "kind": "Command",
            "metadata": {"name": "abort-job-1", "namespace": "default"},
            "action": "AbortJob",
            "target": {"kind": "Job", "name": "job-1"},
        }
    )


def _conf() -> str:
    text = example_text("scheduler-conf/preempt-binpack.conf")
    return json.dumps(
        {
            "apiVersion": "scheduler.volcano.sh/v1alpha1",
            "kind": "SchedulerConfiguration",
            "spec": {"conf": text},
        }
    )


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    url: str
    body: Callable[[], str] | None = None
    model: type[models.Model] | None = None  # rows counted: a refused call adds none
    content_type: str = "application/json"
    # Expected status per role (in ROLES order).
    expect: tuple[int, ...] = ()


def _status_patch() -> str:
    return json.dumps({"status": {"state": {"phase": "Running"}}})


def _min_available_patch() -> str:
    return json.dumps({"spec": {"minAvailable": 1}})


DEFAULT_JOBS = JOBS.format(ns="default")
OTHER_JOBS = JOBS.format(ns="other")
MERGE = "application/merge-patch+json"
ENDPOINTS = [
    # anonymous, nobody, viewer, submitter, operator, admin
    Endpoint("list-jobs", "get", DEFAULT_JOBS, expect=(401, 403, 200, 200, 200, 200)),
    Endpoint("list-jobs-other-ns", "get", OTHER_JOBS, expect=(401, 403, 403, 403, 200, 200)),
    Endpoint("get-job", "get", f"{DEFAULT_JOBS}/job-1", expect=(401, 403, 200, 200, 200, 200)),
    Endpoint(
        "get-job-other-ns", "get", f"{OTHER_JOBS}/job-9", expect=(401, 403, 403, 403, 200, 200)
    ),
    Endpoint("create-job", "post", DEFAULT_JOBS, _job, Job, expect=(401, 403, 403, 201, 201, 201)),
    Endpoint(
        "create-job-other-ns",
        "post",
        OTHER_JOBS,
        lambda: _job("job-2", "other"),
        Job,
        expect=(401, 403, 403, 403, 201, 201),
    ),
    Endpoint(
        "scale-job",
        "patch",
        f"{DEFAULT_JOBS}/job-1",
        _min_available_patch,
        content_type=MERGE,
        expect=(401, 403, 403, 200, 200, 200),
    ),
    Endpoint(
        "job-status",
        "patch",
        f"{DEFAULT_JOBS}/job-1/status",
        _status_patch,
        content_type=MERGE,
        expect=(401, 403, 403, 403, 200, 200),
    ),
    Endpoint(
        "delete-job", "delete", f"{DEFAULT_JOBS}/job-1", expect=(401, 403, 403, 200, 200, 200)
    ),
    Endpoint(
        "abort-job-command",
        "post",
        COMMANDS.format(ns="default"),
        _command,
        Command,
        expect=(401, 403, 403, 201, 201, 201),
    ),
    Endpoint("list-queues", "get", QUEUES, expect=(401, 403, 200, 200, 200, 200)),
    Endpoint("create-queue", "post", QUEUES, _queue, Queue, expect=(401, 403, 403, 403, 201, 201)),
    Endpoint(
        "queue-weight",
        "patch",
        f"{QUEUES}/default",
        lambda: json.dumps({"spec": {"weight": 3}}),
        content_type=MERGE,
        expect=(401, 403, 403, 403, 200, 200),
    ),
    Endpoint("list-nodes", "get", NODES, expect=(401, 403, 200, 200, 200, 200)),
    Endpoint("create-node", "post", NODES, _node, Node, expect=(401, 403, 403, 403, 201, 201)),
    Endpoint("list-pods", "get", PODS.format(ns="default"), expect=(401, 403, 200, 200, 200, 200)),
    Endpoint(
        "create-pod",
        "post",
        PODS.format(ns="default"),
        _pod,
        Pod,
        expect=(401, 403, 403, 403, 201, 201),
    ),
    Endpoint(
        "create-priority-class",
        "post",
        PRIORITY_CLASSES,
        lambda: json.dumps(example("queues/high-priority-class.yaml")),
        PriorityClass,
        expect=(401, 403, 403, 403, 201, 201),
    ),
    Endpoint(
        "read-configuration",
        "get",
        f"{CONFIGURATIONS}/active",
        expect=(401, 403, 200, 200, 200, 200),
    ),
    Endpoint(
        "replace-configuration",
        "put",
        f"{CONFIGURATIONS}/active",
        _conf,
        SchedulerConfiguration,
        expect=(401, 403, 403, 403, 200, 200),
    ),
    Endpoint("read-audit-log", "get", AUDIT, expect=(401, 403, 403, 403, 200, 200)),
]
CASES = [
    (endpoint, role, endpoint.expect[index])
    for endpoint in ENDPOINTS
    for index, role in enumerate(ROLES)
]


@pytest.fixture
def clients(make_user: Callable[..., Any], django_user_model: Any) -> dict[str, Client]:
    """Return a client per role, and store job-1 (default) and job-9 (other)."""
    Namespace.objects.get_or_create(name="other")
    for name, namespace in (("job-1", "default"), ("job-9", "other")):
        job = Job.objects.create(name=name, namespace=namespace, queue="default", min_available=1)
        template = example("jobs/nginx-sleep.yaml")["spec"]["tasks"][0]["template"]
        TaskSpec.objects.create(
            job=job,
            index=0,
            name="main",
            replicas=1,
            min_available=1,
            max_retry=3,
            template=template,
        )
    admin = django_user_model.objects.create_superuser("ada", "ada@example.com", None)
    return {
        "anonymous": Client(),
        "nobody": token_client(make_user("nora", None, ("default",))),
        "viewer": token_client(make_user("vera", "viewer", ("default",))),
        "submitter": token_client(make_user("sam", "submitter", ("default",))),
        "operator": token_client(make_user("olga", "operator")),
        "admin": token_client(admin),
    }


@pytest.mark.parametrize(
    ("endpoint", "role", "expected"),
    CASES,
    ids=[f"{e.name}-{role}" for e, role, _ in CASES],
)
def test_role_table(
    clients: dict[str, Client], endpoint: Endpoint, role: str, expected: int
) -> None:
    rows_before = endpoint.model._default_manager.count() if endpoint.model else 0
    job_before = list(Job.objects.values_list("name", "min_available", "phase", "resource_version"))
    weight_before = Queue.objects.get(name="default").weight

    call = getattr(clients[role], endpoint.method)
    if endpoint.body is None:
        response = call(endpoint.url)
    else:
        response = call(endpoint.url, endpoint.body(), content_type=endpoint.content_type)

    assert response.status_code == expected, response.content
    if expected >= 400:
        body = response.json()
        assert body["kind"] == "Status"
        assert body["reason"] == {401: "Unauthorized", 403: "Forbidden"}[expected]
        if endpoint.model:
            assert endpoint.model._default_manager.count() == rows_before
        assert (
            list(Job.objects.values_list("name", "min_available", "phase", "resource_version"))
            == job_before
        )
        assert Queue.objects.get(name="default").weight == weight_before


def test_anonymous_call_is_told_how_to_authenticate(clients: dict[str, Client]) -> None:
    response = clients["anonymous"].get(QUEUES)

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_submitter_lists_only_their_namespaces_jobs(clients: dict[str, Client]) -> None:
    response = clients["submitter"].get("/apis/batch.volcano.sh/v1alpha1/jobs")

    assert response.status_code == 200
    assert [item["metadata"]["namespace"] for item in response.json()["items"]] == ["default"]
    every = clients["operator"].get("/apis/batch.volcano.sh/v1alpha1/jobs").json()["items"]
    assert sorted(item["metadata"]["namespace"] for item in every) == ["default", "other"]


def test_group_grant_gives_every_member_the_namespace(
    make_user: Callable[..., Any], django_user_model: Any
) -> None:
    from django.contrib.auth.models import Group

    from accounts.models import NamespaceGrant

    team = Group.objects.create(name="team-other")
    NamespaceGrant.objects.create(group=team, namespace="other")
    user = make_user("gus", "viewer")
    user.groups.add(team)

    response = token_client(user).get(OTHER_JOBS)

    assert response.status_code == 200


def test_revoked_token_is_401(make_user: Callable[..., Any]) -> None:
    user = make_user("rex", "operator")
    client = token_client(user)
    assert client.get(QUEUES).status_code == 200

    token_revoke(token=ApiToken.objects.get(user=user))

    assert client.get(QUEUES).status_code == 401


def test_token_scheme_is_accepted_too(make_user: Callable[..., Any]) -> None:
    from accounts.services import token_create

    _, token = token_create(user=make_user("tom", "viewer"), name="script")

    response = Client(headers={"authorization": f"Token {token}"}).get(QUEUES)

    assert response.status_code == 200


def test_session_login_reaches_the_api(make_user: Callable[..., Any]) -> None:
    make_user("lia", "viewer", ("default",))
    client = Client()
    assert client.login(username="lia", password="pw-lia")

    assert client.get(DEFAULT_JOBS).status_code == 200
