"""The issue's "done when", through vcctl: a job submitted by the CLI runs, shows in ``job
list`` and ``queue list`` with live counts, and ``suspend``/``resume`` really stop and restart it.

The embedded stack (controller, scheduler, simulated kubelet) runs on an injected clock in
the test thread, on the same database the live server answers from.
"""

from __future__ import annotations

import pytest

from tests.e2e.stack import Clock, nodes
from tests.vcctl.runner_kit import Runner

pytestmark = pytest.mark.django_db(transaction=True)


def job_row(vcctl: Runner, name: str) -> dict[str, str]:
    """Return the ``job list`` row of ``name`` as {column: value}."""
    lines = vcctl("job", "list").out.splitlines()
    header = lines[0].split()
    row = next(line.split() for line in lines[1:] if line.split()[0] == name)
    return dict(zip(header, row, strict=True))


def phase_of(name: str) -> str:
    from jobs.models import Job

    return str(Job.objects.get(name=name).phase)


def test_a_job_run_by_vcctl_runs_and_suspend_resume_stop_and_restart_it(vcctl: Runner) -> None:
    nodes(2)
    assert vcctl("job", "run", "-N", "pi", "-r", "2", "-m", "2", "-R", "cpu=1").code == 0
    clock = Clock()

    clock.run_until(lambda: phase_of("pi") == "Running")
    row = job_row(vcctl, "pi")
    assert (row["Phase"], row["Replicas"], row["Min"]) == ("Running", "2", "2")
    assert int(row["Running"]) + int(row["Pending"]) == 2
    queue = vcctl("queue", "get", "-n", "default").out.splitlines()[1].split()
    assert queue[:3] == ["default", "1", "Open"]
    assert queue[5] == "1"  # one PodGroup Running in the default queue

    assert vcctl("job", "suspend", "-N", "pi").code == 0
    clock.run_until(lambda: phase_of("pi") == "Aborted")
    assert job_row(vcctl, "pi")["Phase"] == "Aborted"

    assert vcctl("job", "resume", "-N", "pi").code == 0
    clock.run_until(lambda: phase_of("pi") == "Running")
    assert job_row(vcctl, "pi")["Phase"] == "Running"
