"""``vcctl queue ...`` against a live server: vcctl's table, weight updates, open/close, delete."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from tests.vcctl.runner_kit import Result, Runner, make_token

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = "Name                     Weight  State   Inqueue Pending Running Unknown Completed"


def test_queue_create_then_list_and_get_print_vcctls_table(vcctl: Runner) -> None:
    created = vcctl("queue", "create", "-n", "research", "-w", "3")
    assert (created.code, created.out, created.err) == (0, "", "")

    listed = vcctl("queue", "list")
    lines = listed.out.splitlines()
    assert lines[0] == HEADER
    assert (
        "research                 3       Open    0       0       0       0       0       " in lines
    )
    assert any(line.startswith("default                  1       Open") for line in lines)

    got = vcctl("queue", "get", "-n", "research")
    assert got.out.splitlines() == [
        HEADER,
        "research                 3       Open    0       0       0       0       0       ",
    ]


def test_queue_get_prints_yaml_or_json(vcctl: Runner) -> None:
    assert vcctl("queue", "create", "-n", "gpu", "-w", "2").code == 0
    as_json = json.loads(vcctl("queue", "get", "-n", "gpu", "-o", "json").out)
    assert as_json == yaml.safe_load(vcctl("queue", "get", "-n", "gpu", "-o", "yaml").out)
    assert (as_json["kind"], as_json["metadata"]["name"], as_json["spec"]["weight"]) == (
        "Queue",
        "gpu",
        2,
    )
    listing = json.loads(vcctl("queue", "list", "-o", "json").out)
    assert listing["kind"] == "QueueList"
    assert {"default", "gpu"} <= {item["metadata"]["name"] for item in listing["items"]}


def test_queue_operate_update_merge_patches_the_weight(vcctl: Runner) -> None:
    from queues.models import Queue

    assert vcctl("queue", "create", "-n", "batch").code == 0
    updated = vcctl("queue", "operate", "-n", "batch", "-a", "update", "-w", "7")
    assert (updated.code, updated.err) == (0, "")
    assert Queue.objects.get(name="batch").weight == 7
    assert vcctl("queue", "get", "-n", "batch").out.splitlines()[1].split()[:2] == ["batch", "7"]


def test_queue_operate_open_and_close_file_bus_commands(vcctl: Runner) -> None:
    from jobs.models import Command

    assert vcctl("queue", "create", "-n", "nightly").code == 0
    assert vcctl("queue", "operate", "-n", "nightly", "-a", "close").code == 0
    assert vcctl("queue", "operate", "-n", "nightly", "-a", "open").code == 0
    commands = list(Command.objects.order_by("created_at", "id"))
    assert [c.action for c in commands] == ["CloseQueue", "OpenQueue"]
    assert {(c.target_kind, c.target_name, c.namespace) for c in commands} == {
        ("Queue", "nightly", "default")
    }


def test_queue_delete_removes_it_but_the_default_queue_is_refused(vcctl: Runner) -> None:
    from queues.models import Queue

    assert vcctl("queue", "create", "-n", "scratch").code == 0
    assert vcctl("queue", "delete", "-n", "scratch") == Result(0, "", "")
    assert not Queue.objects.filter(name="scratch").exists()

    refused = vcctl("queue", "delete", "-n", "default")
    assert refused.code == 1
    assert refused.err.startswith("Error from server (")
    assert Queue.objects.filter(name="default").exists()


def test_bad_weight_is_refused_naming_the_field(vcctl: Runner) -> None:
    from queues.models import Queue

    refused = vcctl("queue", "create", "-n", "heavy", "-w", "70000")
    assert refused.code == 1
    assert refused.err.startswith("Error from server (Invalid): ")
    assert "weight" in refused.err
    assert not Queue.objects.filter(name="heavy").exists()


def test_only_operators_may_change_queues(vcctl: Runner, django_user_model: Any) -> None:
    from queues.models import Queue

    submitter = make_token(django_user_model, "submitter", namespaces=("default",))
    refused = vcctl("queue", "operate", "-n", "default", "-a", "update", "-w", "9", token=submitter)
    assert refused.code == 1
    assert refused.err.startswith("Error from server (Forbidden): ")
    assert Queue.objects.get(name="default").weight == 1
    assert vcctl("queue", "list", token=submitter).code == 0


def test_queue_list_reads_every_page_of_a_long_list(
    vcctl: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vcctl import client

    for index in range(5):
        assert vcctl("queue", "create", "-n", f"q{index}").code == 0
    monkeypatch.setattr(client, "PAGE_SIZE", 2)  # default + 5 queues = three pages
    urls: list[str] = []
    real_opener = client._default_opener

    def counting_opener(request: Any, timeout: float) -> Any:
        urls.append(request.full_url)
        return real_opener(request, timeout)

    monkeypatch.setattr(client, "_default_opener", counting_opener)
    names = [line.split()[0] for line in vcctl("queue", "list").out.splitlines()[1:]]
    assert names == ["default", "q0", "q1", "q2", "q3", "q4"]
    assert len(urls) == 3
    assert all("limit=2" in url for url in urls)
    assert "continue=" in urls[2]


def test_queue_create_with_state_closed_creates_it_closed(vcctl: Runner) -> None:
    assert vcctl("queue", "create", "-n", "frozen", "-S", "Closed").code == 0
    assert vcctl("queue", "get", "-n", "frozen").out.splitlines()[1].split()[:3] == [
        "frozen",
        "1",
        "Closed",
    ]
    refused = vcctl("queue", "create", "-n", "odd", "-S", "Sleepy")
    assert refused.code == 1
    assert refused.err.startswith("Error from server (Invalid): ")
    assert "state" in refused.err
