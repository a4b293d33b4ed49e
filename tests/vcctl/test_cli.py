"""vcctl's command line: flags, defaults, refusals before any call, and the bodies it sends."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.vcctl.fake_server_kit import FakeServer
from vcctl import add_arguments, execute
from vcctl.client import Client, Connection


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="vcctl")
    add_arguments(parser)
    return parser.parse_args(argv)


def run(server: FakeServer, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    client = Client(Connection("http://api.example"), opener=server)
    code = execute(parse(*argv), stdout=out, stderr=err, client=client)
    return code, out.getvalue(), err.getvalue()


def test_job_run_defaults_are_vcctls():
    args = parse("job", "run", "-N", "j")
    assert (args.image, args.replicas, args.min, args.scheduler) == ("busybox", 1, 1, "volcano")
    assert args.requests == args.limits == "cpu=1000m,memory=100Mi"


def test_job_flags_use_capital_n_for_name_and_queue_flags_lowercase():
    assert parse("job", "view", "-N", "j", "-n", "team").namespace == "team"
    assert parse("queue", "get", "-n", "q1").name == "q1"
    assert parse("queue", "create").name == "test"  # vcctl's default queue name
    assert parse("job", "list", "--all-namespaces", "-q", "q1").queue == "q1"


@pytest.mark.parametrize(
    "argv",
    [
        ("job",),
        ("job", "explode"),
        ("job", "list", "--bogus"),
        ("job", "run", "--replicas", "two"),
        ("queue", "list", "-o", "table"),
    ],
)
def test_bad_command_lines_exit_with_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as caught:
        parse(*argv)
    assert caught.value.code == 2
    assert "usage: vcctl" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("job", "run"), "job name cannot be left blank"),
        (("job", "view"), "job name (specified by --name or -N) is mandatory"),
        (("job", "suspend"), "job name is mandatory to suspend a particular job"),
        (("job", "resume"), "job name is mandatory to resume a particular job"),
        (("job", "delete"), "job name is mandatory to delete a particular job"),
        (("queue", "get"), "name is mandatory to get the particular queue details"),
        (("queue", "delete"), "Queue name must be specified"),
        (("queue", "operate", "-n", "q"), "Action can not be null"),
        (("queue", "operate", "-n", "q", "-a", "drain"), "Action drain invalid"),
        (("queue", "operate", "-n", "q", "-a", "update"), "weight must be specified"),
        (("job", "run", "-N", "j", "-R", "cpu"), "invalid argument syntax cpu"),
        (("job", "run", "-N", "j", "-L", "memory=lots"), "invalid quantity 'lots'"),
        (("job", "run", "-f", "job.txt"), "only support yaml file"),
    ],
)
def test_missing_or_bad_flags_are_refused_before_any_call(argv, message):
    server = FakeServer([])
    code, out, err = run(server, *argv)
    assert code == 1
    assert message in err
    assert err.startswith("Error: ")
    assert server.requests == []
    assert out == ""


def test_job_run_from_flags_posts_vcctls_one_task_job():
    server = FakeServer([(201, {"metadata": {"name": "pi"}})])
    code, out, _ = run(
        server,
        "job",
        "run",
        "-N",
        "pi",
        "-n",
        "team",
        "-i",
        "perl",
        "-r",
        "3",
        "-m",
        "2",
        "-R",
        "cpu=500m",
        "-q",
        "research",
    )
    assert (code, out) == (0, "run job pi successfully\n")
    request = server.requests[0]
    assert (
        request.full_url == "http://api.example/apis/batch.volcano.sh/v1alpha1/namespaces/team/jobs"
    )
    body = json.loads(request.data)
    assert body["metadata"] == {"name": "pi", "namespace": "team"}
    assert body["spec"]["minAvailable"] == 2
    assert body["spec"]["queue"] == "research"
    assert body["spec"]["schedulerName"] == "volcano"
    task = body["spec"]["tasks"][0]
    assert task["replicas"] == 3
    assert task["template"]["metadata"]["labels"] == {"job.volcano.sh": "pi"}
    container = task["template"]["spec"]["containers"][0]
    assert container["image"] == "perl"
    assert container["resources"] == {
        "limits": {"cpu": "1000m", "memory": "100Mi"},
        "requests": {"cpu": "500m"},
    }


def test_job_run_from_file_takes_the_files_namespace_unless_told(tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"
        "metadata: {name: f, namespace: lab}\nspec: {tasks: []}\n"
    )
    server = FakeServer([(201, {"metadata": {"name": "f"}})])
    assert run(server, "job", "run", "-f", str(manifest))[0] == 0
    assert server.requests[0].full_url.endswith("/namespaces/lab/jobs")
    code, _, err = run(FakeServer([]), "job", "run", "-f", str(manifest), "-n", "other")
    assert code == 1
    assert "You must pass '--namespace=lab'" in err


def test_job_run_refuses_a_file_that_is_not_a_job(tmp_path: Path) -> None:
    manifest = tmp_path / "q.yaml"
    manifest.write_text(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q}\n"
    )
    code, _, err = run(FakeServer([]), "job", "run", "-f", str(manifest))
    assert code == 1
    assert (
        "expected a batch.volcano.sh/v1alpha1 Job, found scheduling.volcano.sh/v1beta1/Queue" in err
    )


def test_suspend_posts_an_abortjob_command_targeting_the_job():
    job = {"metadata": {"name": "j", "namespace": "team", "uid": "u-1"}}
    server = FakeServer([(200, job), (201, {})])
    assert run(server, "job", "suspend", "-N", "j", "-n", "team")[0] == 0
    command = json.loads(server.requests[1].data)
    assert server.requests[1].full_url.endswith(
        "/apis/bus.volcano.sh/v1alpha1/namespaces/team/commands"
    )
    assert command["action"] == "AbortJob"
    assert command["metadata"]["generateName"] == "j-abortjob-"
    assert command["target"]["kind"] == "Job"
    assert command["target"]["uid"] == "u-1"


def test_the_cli_imports_no_django():
    code = (
        "import sys, vcctl.cli; "
        "bad = [m for m in sys.modules if m.split('.')[0] in {'django', 'rest_framework', 'jobs', 'queues'}]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
