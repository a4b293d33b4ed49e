"""A bus Command may do only what its creator may do, to a target it may reach.

The table walks role, action, target kind and namespace through the API, as kubectl and vcctl
send Commands. Every refused row leaves nothing behind: no Command, no Event, the queue Open.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from core.models import Event, Namespace
from jobs.models import Command, Job
from jobs.services import job_submit
from queues.models import Queue, QueueState

COMMANDS = "/apis/bus.volcano.sh/v1alpha1/namespaces/{ns}/commands"


def _job(name: str, namespace: str) -> None:
    Namespace.objects.get_or_create(name=namespace)
    job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"minAvailable": 1, "tasks": [{"name": "t", "replicas": 1, "template": {
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}]},
    })  # fmt: skip


def _command(action: str, kind: str, target: str, namespace: str = "team-a") -> dict[str, Any]:
    api = "scheduling.volcano.sh/v1beta1" if kind == "Queue" else "batch.volcano.sh/v1alpha1"
    return {
        "apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
        "metadata": {"name": f"{action.lower()}-{target}", "namespace": namespace},
        "action": action,
        "target": {"apiVersion": api, "kind": kind, "name": target},
    }  # fmt: skip


def _post(client: Client, body: dict[str, Any]) -> Any:
    namespace = body["metadata"]["namespace"]
    return client.post(
        COMMANDS.format(ns=namespace), json.dumps(body), content_type="application/json"
    )


@pytest.fixture
def cluster(db: None) -> None:
    """Jobs ``mine`` in team-a and ``theirs`` in team-b; the default queue Open."""
    _job("mine", "team-a")
    _job("theirs", "team-b")
    Queue.objects.get_or_create(name="default")
    Queue.objects.filter(name="default").update(state=QueueState.OPEN)


Login = Callable[..., Client]

# (who, action, target kind, target name, status, field named in the 422's causes)
REFUSED = [
    ("submitter", "CloseQueue", "Queue", "default", 403, None),
    ("submitter", "OpenQueue", "Queue", "default", 403, None),
    ("submitter", "AbortJob", "Job", "theirs", 404, None),  # team-b is not theirs to see
    ("submitter-ab", "AbortJob", "Job", "theirs", 422, "target"),
    ("operator", "RestartJob", "Job", "theirs", 422, "target"),
    ("submitter", "AbortJob", "Job", "ghost", 404, None),
    ("operator", "CloseQueue", "Queue", "ghost", 404, None),
    ("operator", "AbortJob", "Queue", "default", 422, "target"),
    ("operator", "CloseQueue", "Job", "mine", 422, "target"),
    ("viewer", "AbortJob", "Job", "mine", 403, None),
]


def _client(console_login: Login, who: str) -> Client:
    if who == "submitter-ab":
        return console_login("sue", "submitter", ("team-a", "team-b"))
    grants = ("team-a",) if who in ("submitter", "viewer") else ()
    return console_login(who, who, grants)


@pytest.mark.parametrize(
    ("who", "action", "kind", "target", "status", "field"),
    REFUSED,
    ids=[f"{r[0]}-{r[1]}-{r[2]}-{r[3]}" for r in REFUSED],
)
def test_a_command_beyond_its_creator_is_refused_and_leaves_nothing(
    cluster: None, console_login: Login, who: str, action: str, kind: str, target: str,
    status: int, field: str | None,
) -> None:  # fmt: skip
    client = _client(console_login, who)
    events_before = Event.objects.count()

    response = _post(client, _command(action, kind, target))

    assert response.status_code == status, response.content
    body = response.json()
    assert body["kind"] == "Status"
    assert body["code"] == status
    if field is not None:
        assert [c["field"] for c in body["details"]["causes"]] == [field]
    assert not Command.objects.exists()
    assert Event.objects.count() == events_before
    assert Queue.objects.get(name="default").state == QueueState.OPEN


def test_the_submitters_close_queue_names_what_it_may_not_do(
    cluster: None, console_login: Login
) -> None:
    response = _post(console_login("sam", "submitter", ("team-a",)),
                     _command("CloseQueue", "Queue", "default"))  # fmt: skip

    assert response.status_code == 403
    assert response.json()["message"].startswith(
        'commands.bus.volcano.sh "closequeue-default" is forbidden: User "sam" cannot update '
        'resource "queues" in API group "scheduling.volcano.sh"'
    )


@pytest.mark.parametrize(
    ("who", "action", "kind", "target"),
    [
        ("submitter", "AbortJob", "Job", "mine"),
        ("submitter-ab", "ResumeJob", "Job", "mine"),
        ("operator", "RestartJob", "Job", "mine"),
        ("operator", "CloseQueue", "Queue", "default"),
        ("admin", "OpenQueue", "Queue", "default"),
    ],
)
def test_a_command_its_creator_may_give_is_stored(
    cluster: None, console_login: Login, who: str, action: str, kind: str, target: str
) -> None:
    response = _post(_client(console_login, who), _command(action, kind, target))

    assert response.status_code == 201, response.content
    stored = Command.objects.get()
    assert (stored.action, stored.target_kind, stored.target_name) == (action, kind, target)


def test_a_target_uid_must_be_the_named_job(cluster: None, console_login: Login) -> None:
    body = _command("AbortJob", "Job", "mine")
    other = json.loads(json.dumps(body))
    body["target"]["uid"] = str(Job.objects.get(name="theirs").uid)
    response = _post(console_login("olga", "operator"), body)

    assert response.status_code == 422, response.content
    assert response.json()["details"]["causes"][0]["field"] == "target"
    other["target"]["uid"] = str(Job.objects.get(name="mine").uid)
    assert _post(console_login("otto", "operator"), other).status_code == 201
