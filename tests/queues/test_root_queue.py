"""The ``root`` queue, as in Volcano: there from the start, the parent of every queue, protected."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from core.models import Event
from jobs.controller.queue_commands import reconcile_queue_commands
from jobs.models import Command
from kube.admission_causes import AdmissionError
from queues.admission import admit_queue
from queues.controller import reconcile_queues
from queues.models import Queue
from queues.services import queue_ensure_builtin
from tests.jobs.controller_kit import NOW
from tests.kube.api_kit import COMMANDS, QUEUES

pytestmark = pytest.mark.django_db

MERGE = "application/merge-patch+json"


def _patch(client: Client, body: dict[str, Any]) -> Any:
    return client.patch(f"{QUEUES}/root", json.dumps(body), content_type=MERGE)


def test_root_is_there_after_migrate_as_volcano_creates_it(operator: Client) -> None:
    shown = operator.get(f"{QUEUES}/root").json()

    assert shown["spec"]["weight"] == 1
    assert shown["spec"]["reclaimable"] is False
    assert shown["status"]["state"] == "Open"
    names = [q["metadata"]["name"] for q in operator.get(QUEUES).json()["items"]]
    assert {"default", "root"} <= set(names)


def test_start_up_brings_root_back_if_it_was_lost() -> None:
    Queue.objects.filter(name="root").update(name="lost")  # a restore without it

    assert queue_ensure_builtin() == ["root"]
    assert queue_ensure_builtin() == []
    assert Queue.objects.get(name="root").reclaimable is False


def test_root_cannot_be_deleted(operator: Client) -> None:
    response = operator.delete(f"{QUEUES}/root")

    assert response.status_code in (403, 422), response.content
    assert "`root` queue can not be deleted" in response.json()["message"]
    assert Queue.objects.filter(name="root").exists()


def test_roots_resources_cannot_be_changed(operator: Client) -> None:
    response = _patch(operator, {"spec": {"capability": {"cpu": "8"}}})

    assert response.status_code == 422, response.content
    assert (
        "root queue's resource attributes (capability, deserved, guarantee) cannot be modified"
        in response.json()["message"]
    )
    assert Queue.objects.get(name="root").capability == {}


def test_root_cannot_get_a_parent(operator: Client) -> None:
    response = _patch(operator, {"spec": {"parent": "default"}})

    assert response.status_code == 422, response.content
    assert "root queue can not have a parent queue" in response.json()["message"]
    assert Queue.objects.get(name="root").parent == ""


def test_roots_weight_may_change(operator: Client) -> None:
    assert _patch(operator, {"spec": {"weight": 3}}).status_code == 200
    assert Queue.objects.get(name="root").weight == 3


def test_root_cannot_be_set_closed() -> None:
    root = Queue.objects.get(name="root")
    root.state = "Closed"

    with pytest.raises(AdmissionError, match="root queue can not be closed"):
        admit_queue(root, old=Queue.objects.get(name="root"))
    assert Queue.objects.get(name="root").state == "Open"


def test_a_close_command_for_root_is_dropped_with_a_warning(operator: Client) -> None:
    body = {
        "apiVersion": "bus.volcano.sh/v1alpha1",
        "kind": "Command",
        "metadata": {"generateName": "close-root-"},
        "action": "CloseQueue",
        "target": {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "name": "root"},
    }
    created = operator.post(
        COMMANDS.format(ns="default"), json.dumps(body), content_type="application/json"
    )
    assert created.status_code == 201, created.content

    reconcile_queue_commands(NOW)  # the job controller takes queue Commands

    assert Queue.objects.get(name="root").state == "Open"
    assert not Command.objects.exists()
    warning = Event.objects.get(involved_name="root", reason="CloseQueueFailed")
    assert (warning.type, warning.message) == ("Warning", "root queue can not be closed")


def test_a_queue_under_root_is_a_top_level_queue(operator: Client) -> None:
    body = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": "team"},
        "spec": {"parent": "root", "weight": 2},
    }
    response = operator.post(QUEUES, json.dumps(body), content_type="application/json")

    assert response.status_code == 201, response.content


def test_the_console_refuses_to_close_root(console_login: Any) -> None:
    client = console_login("olga", "operator")

    response = client.post("/queues/root/action/", {"action": "close"}, follow=True)

    assert "root queue can not be closed" in response.content.decode()
    assert Queue.objects.get(name="root").state == "Open"


def test_root_closed_by_a_raw_status_write_is_opened_again(operator: Client) -> None:
    body = {"status": {"state": "Closed"}}
    written = operator.patch(f"{QUEUES}/root/status", json.dumps(body), content_type=MERGE)
    assert written.status_code == 200, written.content  # /status is the controllers' to write

    reconcile_queues(NOW)

    assert Queue.objects.get(name="root").state == "Open"
    assert Event.objects.filter(involved_name="root", reason="CloseQueueFailed").exists()
