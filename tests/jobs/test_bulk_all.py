"""Acting on every job a filter matches, and the jobs list grouped: the console's view."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.test import Client

from core.models import Namespace
from jobs.models import Command, Job
from jobs.services import job_submit
from queues.models import Queue

HX = {"HX-Request": "true"}


def _submit(name: str, namespace: str = "default", *, phase: str = "", queue: str = "") -> Job:
    Namespace.objects.get_or_create(name=namespace)
    job = job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"minAvailable": 1, **({"queue": queue} if queue else {}), "tasks": [{
            "name": "main", "replicas": 1, "template": {"spec": {"containers": [
                {"name": "main", "image": "busybox"}]}}}]},
    })  # fmt: skip
    if phase:
        Job.objects.filter(pk=job.pk).update(phase=phase)
    return job


def _run(client: Client, **form: str) -> list[str]:
    """Start a bulk action on a filtered set and follow its progress to the end."""
    answers = [client.post("/jobs/bulk/all/", form, headers=HX).content.decode()]
    while run := re.search(r'"run": "([^"]+)"', answers[-1]):
        answers.append(
            client.post("/jobs/bulk/all/step/", {"run": run.group(1)}, headers=HX).content.decode()
        )
        assert len(answers) < 100
    return answers


def test_the_offer_counts_what_the_filter_matches(console_login: Callable[..., Any]) -> None:
    for i in range(3):
        _submit(f"run-{i}", phase="Running")
    _submit("waits", phase="Pending")
    client = console_login("olga", "operator")
    body = client.get("/jobs/?phase=Running").content.decode()
    assert "Act on all 3 matching jobs" in body
    assert "Abort 3 jobs matching phase=Running?" in body


def test_acting_on_all_matching_jobs_in_batches(console_login: Callable[..., Any]) -> None:
    for i in range(45):
        _submit(f"run-{i:02}", phase="Running")
    _submit("waits", phase="Pending")
    client = console_login("olga", "operator")
    answers = _run(client, action="abort", phase="Running")
    assert len(answers) == 4  # the start, then batches of 20, 20 and 5
    assert 'max="45" value="20"' in answers[1]
    assert "45 of 45 done." in answers[-1]
    assert "the page had counted" not in answers[-1]
    aborted = set(Command.objects.values_list("target_name", flat=True))
    assert len(aborted) == 45
    assert "waits" not in aborted


def test_namespaces_not_granted_are_neither_counted_nor_touched(
    console_login: Callable[..., Any],
) -> None:
    _submit("ours", "team-a", phase="Running")
    _submit("theirs", "team-b", phase="Running")
    client = console_login("sam", "submitter", ("team-a",))
    assert (
        "Abort 1 job matching phase=Running?" in client.get("/jobs/?phase=Running").content.decode()
    )
    answers = _run(client, action="delete", phase="Running")
    assert "1 of 1 done." in answers[-1]
    assert list(Job.objects.values_list("name", flat=True)) == ["theirs"]


def test_a_viewer_is_offered_nothing_and_refused(console_login: Callable[..., Any]) -> None:
    _submit("keep", phase="Running")
    client = console_login("vera", "viewer", ("default",))
    assert "bulk-all-form" not in client.get("/jobs/").content.decode()
    assert client.post("/jobs/bulk/all/", {"action": "abort"}, headers=HX).status_code == 403
    assert not Command.objects.exists()


def test_a_job_that_stopped_matching_is_listed_not_touched(
    console_login: Callable[..., Any],
) -> None:
    _submit("a", phase="Running")
    _submit("b", phase="Running")
    client = console_login("olga", "operator")
    _submit("c", phase="Running")  # after the page counted two
    form = {"action": "abort", "phase": "Running", "counted": "2"}
    start = client.post("/jobs/bulk/all/", form, headers=HX)
    assert "3 jobs matched when you confirmed (the page had counted 2)." in start.content.decode()
    Job.objects.filter(name="b").update(phase="Completed")
    run = re.search(r'"run": "([^"]+)"', start.content.decode())
    assert run is not None
    body = client.post("/jobs/bulk/all/step/", {"run": run.group(1)}, headers=HX).content.decode()
    assert "2 of 3 done." in body
    assert "default/b</code>: no longer matches the filter" in body
    assert sorted(Command.objects.values_list("target_name", flat=True)) == ["a", "c"]


def test_a_run_belongs_to_who_started_it(console_login: Callable[..., Any]) -> None:
    _submit("a", phase="Running")
    start = console_login("olga", "operator").post(
        "/jobs/bulk/all/", {"action": "abort"}, headers=HX
    )
    run = re.search(r'"run": "([^"]+)"', start.content.decode())
    assert run is not None
    other = console_login("otto", "operator")
    answer = other.post("/jobs/bulk/all/step/", {"run": run.group(1)}, headers=HX)
    assert answer.status_code == 400
    assert not Command.objects.exists()


def test_moving_a_running_job_to_another_queue_is_refused_with_volcanos_message(
    console_login: Callable[..., Any],
) -> None:
    Queue.objects.create(name="research")
    _submit("busy", phase="Running")
    client = console_login("olga", "operator")
    answers = _run(client, action="move", target_queue="research", phase="Running")
    assert "0 of 1 done." in answers[-1]
    assert "spec.queue" in answers[-1]
    assert "job updates may not change fields other than" in answers[-1]
    assert Job.objects.get(name="busy").queue == "default"


def test_grouping_counts_every_matching_job(console_login: Callable[..., Any]) -> None:
    Queue.objects.create(name="research")
    for i in range(3):
        _submit(f"r-{i}", queue="research", phase="Running")
    _submit("d-0", phase="Running")
    _submit("d-1", phase="Pending")
    client = console_login("olga", "operator")
    body = client.get("/jobs/?group=queue").content.decode()
    chips = re.findall(r"<li><span>([^<]+)</span> <span class=\"badge\">(\d+)</span></li>", body)
    assert chips == [("default", "2"), ("research", "3")]
    assert body.index(">default <span") < body.index(">research <span") < body.index("r-0")
    assert body.count('class="group-row"') == 2
    live = client.get("/jobs/?group=queue", headers={**HX, "HX-Target": "jobs-table"})
    assert '<span>research</span> <span class="badge">3</span>' in live.content.decode()
    phases = client.get("/jobs/?group=phase&queue=default").content.decode()
    chips = re.findall(r"<li><span>([^<]+)</span> <span class=\"badge\">(\d+)</span></li>", phases)
    assert sorted(chips) == [("Pending", "1"), ("Running", "1")]


def test_grouping_by_owner_names_the_creator_else_the_owning_object(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("sam", "submitter", ("default",))
    for name in ("s-1", "s-2"):
        Job.objects.filter(pk=_submit(name).pk).update(creator=client.user)
    flow = _submit("step")
    Job.objects.filter(pk=flow.pk).update(
        owner_references=[{"apiVersion": "flow.volcano.sh/v1alpha1", "kind": "JobFlow",
                           "name": "nightly", "uid": "u-1"}])  # fmt: skip
    _submit("orphan")
    body = client.get("/jobs/?group=owner").content.decode()
    chips = re.findall(r"<li><span>([^<]+)</span> <span class=\"badge\">(\d+)</span></li>", body)
    assert chips == [("JobFlow/nightly", "1"), ("sam", "2"), ("—", "1")]
