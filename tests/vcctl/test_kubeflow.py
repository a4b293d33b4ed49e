"""``vcctl kubeflow ...``: create, list, view and delete Kubeflow training jobs over the API."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.vcctl.runner_kit import Runner

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "jobs" / "examples"


def test_run_list_view_delete_a_pytorchjob(vcctl: Runner) -> None:
    from queues.models import Queue
    from training.controller import reconcile_training_jobs
    from training.models import PyTorchJob

    Queue.objects.create(name="test")
    ran = vcctl("kubeflow", "run", "-f", str(EXAMPLES / "pytorchjob-queue-test.yaml"))
    assert (ran.code, ran.out, ran.err) == (
        0,
        "run pytorchjob pytorch-dist-mnist successfully\n",
        "",
    )
    reconcile_training_jobs(dt.datetime.now(dt.UTC))

    listed = vcctl("kubeflow", "list")
    assert listed.code == 0, listed.err
    header, row = listed.out.splitlines()
    assert header.split() == ["Kind", "Name", "State", "Queue", "Replicas", "Age"]
    assert row.split()[:5] == [
        "PyTorchJob",
        "pytorch-dist-mnist",
        "Created",
        "test",
        "Master=1,Worker=5",
    ]
    assert vcctl("kubeflow", "list", "-k", "tfjob").out == "No resources found\n"

    viewed = vcctl("kubeflow", "view", "-N", "pytorch-dist-mnist")
    assert "State:      Created" in viewed.out
    assert "PyTorchJobCreated" in viewed.out

    refused = vcctl("kubeflow", "view", "-N", "pytorch-dist-mnist", "-k", "sparkjob")
    assert refused.code == 1
    assert "unknown kind 'sparkjob'" in refused.err

    deleted = vcctl("kubeflow", "delete", "-N", "pytorch-dist-mnist")
    assert deleted.out == "delete pytorchjob pytorch-dist-mnist successfully\n"
    assert not PyTorchJob.objects.exists()


def test_run_refused_by_admission_names_the_field(vcctl: Runner) -> None:
    ran = vcctl("kubeflow", "run", "-f", str(EXAMPLES / "pytorchjob-queue-test.yaml"))
    assert ran.code == 1
    assert "spec.runPolicy.schedulingPolicy.queue" in ran.err
