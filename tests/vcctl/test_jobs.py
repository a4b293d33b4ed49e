"""``vcctl job ...`` against a live server: what a user sees, and what the server then holds."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.vcctl.runner_kit import Result, Runner, make_token

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = (
    "Creation       Phase       JobType     Replicas    Min   Pending   Running   "
    "Succeeded   Failed    Unknown     RetryCount"
)


def rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines()[1:]]


def test_job_run_from_flags_then_list_shows_it_in_vcctls_columns(vcctl: Runner) -> None:
    ran = vcctl("job", "run", "-N", "pi", "-r", "2", "-m", "2", "-i", "perl")
    assert (ran.code, ran.out, ran.err) == (0, "run job pi successfully\n", "")

    listed = vcctl("job", "list")
    assert listed.code == 0
    header = listed.out.splitlines()[0]
    assert header == "Name   " + HEADER  # name column: len("Name") + 3 when names are shorter
    row = listed.out.splitlines()[1]
    today = datetime.now(UTC).astimezone().date().isoformat()
    assert row.startswith("pi     " + today + "     ")
    assert row[7 + 15 + 12 : 7 + 15 + 24] == "Batch       "
    assert row[7 + 15 + 24 : 7 + 15 + 36] == "2           "  # Replicas = sum of tasks

    from jobs.models import Job

    job = Job.objects.get(namespace="default", name="pi")
    assert job.min_available == 2
    task = job.tasks.get()
    assert task.replicas == 2
    container = task.template["spec"]["containers"][0]
    assert container["image"] == "perl"
    assert container["resources"]["requests"] == {"cpu": "1000m", "memory": "100Mi"}


def test_job_run_from_an_example_manifest_lands_in_its_queue(
    vcctl: Runner, examples_dir: Path
) -> None:
    assert vcctl("queue", "create", "-n", "test").code == 0
    ran = vcctl("job", "run", "-f", str(examples_dir / "jobs" / "nginx-sleep.yaml"))
    assert (ran.code, ran.out) == (0, "run job job-1 successfully\n")

    only_test = vcctl("job", "list", "--queue", "test")
    assert rows(only_test.out)[0][0] == "job-1"
    assert vcctl("job", "list", "-q", "default").out == "No resources found\n"


def test_job_list_filters_by_namespace_and_name_fragment(vcctl: Runner) -> None:
    for name, namespace in (("train-a", "default"), ("train-b", "lab"), ("eval", "lab")):
        assert vcctl("job", "run", "-N", name, "-n", namespace).code == 0

    assert [r[0] for r in rows(vcctl("job", "list", "-n", "lab").out)] == ["eval", "train-b"]
    everywhere = vcctl("job", "list", "--all-namespaces")
    assert everywhere.out.startswith("Namespace   Name      Creation")
    assert sorted((r[0], r[1]) for r in rows(everywhere.out)) == [
        ("default", "train-a"),
        ("lab", "eval"),
        ("lab", "train-b"),
    ]
    fragment = vcctl("job", "list", "--all-namespaces", "--selector", "train")
    assert sorted(r[1] for r in rows(fragment.out)) == ["train-a", "train-b"]
    assert vcctl("job", "list", "-n", "empty").out == "No resources found\n"


def test_job_view_describes_the_job_and_prints_yaml_or_json(vcctl: Runner) -> None:
    assert vcctl("job", "run", "-N", "web", "-i", "nginx:1.27", "-n", "lab").code == 0

    view = vcctl("job", "view", "-N", "web", "-n", "lab")
    assert view.code == 0
    assert "Name:       \tweb\n" in view.out
    assert "Namespace:  \tlab\n" in view.out
    assert "Kind:       \tJob\n" in view.out
    assert "Image:\tnginx:1.27\n" in view.out
    assert "Events:" in view.out

    as_yaml: dict[str, Any] = yaml.safe_load(
        vcctl("job", "view", "-N", "web", "-n", "lab", "-o", "yaml").out
    )
    as_json = json.loads(vcctl("job", "view", "-N", "web", "-n", "lab", "-o", "json").out)
    assert as_yaml == as_json
    assert as_json["kind"] == "Job"
    assert as_json["metadata"]["name"] == "web"
    assert as_json["spec"]["tasks"][0]["replicas"] == 1

    listing = json.loads(vcctl("job", "list", "-n", "lab", "-o", "json").out)
    assert listing["kind"] == "JobList"
    assert [item["metadata"]["name"] for item in listing["items"]] == ["web"]


def test_job_suspend_and_resume_file_bus_commands_for_the_controller(vcctl: Runner) -> None:
    from jobs.models import Command

    assert vcctl("job", "run", "-N", "long").code == 0
    assert vcctl("job", "suspend", "-N", "long") == Result(0, "", "")
    assert vcctl("job", "resume", "-N", "long") == Result(0, "", "")
    commands = list(Command.objects.order_by("created_at", "id"))
    assert [c.action for c in commands] == ["AbortJob", "ResumeJob"]
    assert {(c.target_kind, c.target_name, c.namespace) for c in commands} == {
        ("Job", "long", "default")
    }
    assert commands[0].name.startswith("long-abortjob-")


def test_job_delete_removes_it_and_a_missing_job_is_a_server_error(vcctl: Runner) -> None:
    from jobs.models import Job

    assert vcctl("job", "run", "-N", "gone").code == 0
    deleted = vcctl("job", "delete", "-N", "gone")
    assert (deleted.code, deleted.out) == (0, "delete job gone successfully\n")
    assert not Job.objects.filter(name="gone").exists()

    missing = vcctl("job", "view", "-N", "gone")
    assert missing.code == 1
    assert missing.out == ""
    assert missing.err.startswith("Error from server (NotFound): ")
    assert "gone" in missing.err


def test_invalid_job_is_refused_with_its_field_and_nothing_stored(vcctl: Runner) -> None:
    from jobs.models import Job

    refused = vcctl("job", "run", "-N", "greedy", "-r", "1", "-m", "3")
    assert refused.code == 1
    assert refused.err.startswith("Error from server (Invalid): ")
    assert "minAvailable" in refused.err
    assert not Job.objects.exists()


def test_viewer_may_list_but_not_run_and_anonymous_calls_are_unauthorized(
    vcctl: Runner, django_user_model: Any
) -> None:
    from jobs.models import Job

    viewer = make_token(django_user_model, "viewer", namespaces=("default",))
    forbidden = vcctl("job", "run", "-N", "sneaky", token=viewer)
    assert forbidden.code == 1
    assert forbidden.err.startswith("Error from server (Forbidden): ")
    assert not Job.objects.exists()
    assert vcctl("job", "list", token=viewer) == Result(0, "No resources found\n", "")

    anonymous = vcctl("job", "list", token=None)
    assert anonymous.code == 1
    assert anonymous.err.startswith("Error from server (Unauthorized): ")
    assert vcctl("job", "list", token="vct_not-a-token").err.startswith(
        "Error from server (Unauthorized): "
    )


def test_submitter_cannot_suspend_a_job_outside_their_namespaces(
    vcctl: Runner, django_user_model: Any
) -> None:
    from jobs.models import Command

    assert vcctl("job", "run", "-N", "theirs", "-n", "lab").code == 0
    submitter = make_token(django_user_model, "submitter", namespaces=("default",))
    refused = vcctl("job", "suspend", "-N", "theirs", "-n", "lab", token=submitter)
    assert refused.code == 1
    assert refused.err.startswith("Error from server (Forbidden): ")
    assert not Command.objects.exists()


def test_unreachable_server_is_reported_plainly(live_server: Any) -> None:
    import io

    from django.core.management import call_command

    err = io.StringIO()
    with pytest.raises(SystemExit) as caught:
        call_command("vcctl", "job", "list", "--server", "http://127.0.0.1:9", stderr=err)
    assert caught.value.code == 1
    assert err.getvalue().startswith("cannot connect to the server at http://127.0.0.1:9: ")


def test_job_view_lists_the_jobs_events_only(vcctl: Runner) -> None:
    from django.utils import timezone

    from core.models import Event

    assert vcctl("job", "run", "-N", "seen").code == 0
    now = timezone.now()
    for name, reason in (("seen", "PodGroupPending"), ("other", "Unrelated")):
        Event.objects.create(
            namespace="default",
            name=f"{name}.1",
            involved_kind="Job",
            involved_namespace="default",
            involved_name=name,
            type="Warning",
            reason=reason,
            message="queue is full",
            source="vc-scheduler",
            first_timestamp=now,
            last_timestamp=now,
        )
    events = vcctl("job", "view", "-N", "seen").out.split("Events:\n", 1)[1].splitlines()
    assert [cell.strip() for cell in events[0].split("\t")] == [
        "Type",
        "Reason",
        "Age",
        "From",
        "Message",
    ]
    assert len(events) == 3
    cells = [cell.strip() for cell in events[2].split("\t")]
    assert cells[:2] == ["Warning", "PodGroupPending"]
    assert cells[3:] == ["vc-scheduler", "queue is full"]
