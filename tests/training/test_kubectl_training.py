"""kubectl against the Kubeflow kinds: discovery, explain, dry runs, refusals, output, delete."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.kube.server_kit import KubeServer, kubectl, wait_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "jobs" / "examples"
NAMESPACE = "kubectl-training"


def test_api_resources_lists_the_three_kinds(training_server: KubeServer) -> None:
    done = kubectl(training_server, "api-resources", "--api-group=kubeflow.org", "-o", "wide")
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[1:]}
    assert sorted(rows) == ["mpijobs", "pytorchjobs", "tfjobs"]
    assert "kubeflow.org/v1" in rows["pytorchjobs"]
    assert "PyTorchJob" in rows["pytorchjobs"]


def test_explain_walks_the_run_policy(training_server: KubeServer) -> None:
    done = kubectl(training_server, "explain", "pytorchjob.spec.runPolicy.schedulingPolicy")
    assert done.returncode == 0, done.stderr
    assert "queue" in done.stdout
    assert "priorityClass" in done.stdout


def test_server_dry_run_stores_nothing(training_server: KubeServer) -> None:
    path = EXAMPLES / "tfjob-dist-mnist.yaml"
    done = kubectl(
        training_server, "create", "--dry-run=server", "-f", str(path), namespace=NAMESPACE
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "tfjob.kubeflow.org/tf-dist-mnist created (server dry run)"
    gone = kubectl(training_server, "get", "tfjob", "tf-dist-mnist", namespace=NAMESPACE)
    assert gone.returncode != 0


def test_a_refused_job_names_the_field(training_server: KubeServer) -> None:
    manifest = yaml.safe_load((EXAMPLES / "pytorchjob-queue-test.yaml").read_text())
    manifest["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = -1
    manifest["spec"]["runPolicy"]["schedulingPolicy"]["queue"] = "nowhere"
    done = kubectl(
        training_server, "create", "-f", "-", namespace=NAMESPACE, stdin=json.dumps(manifest)
    )
    assert done.returncode != 0
    assert "spec.pytorchReplicaSpecs[Worker].replicas" in done.stderr
    assert "spec.runPolicy.schedulingPolicy.queue" in done.stderr


def test_mpijob_runs_and_deleting_it_deletes_its_pods(training_server: KubeServer) -> None:
    path = EXAMPLES / "mpijob-horovod.yaml"
    done = kubectl(training_server, "apply", "-f", str(path), namespace=NAMESPACE)
    assert done.stdout.strip() == "mpijob.kubeflow.org/tensorflow-mnist created", done.stderr

    def state() -> str:
        shown = kubectl(
            training_server, "get", "mpijob", "tensorflow-mnist", "-o", "json", namespace=NAMESPACE
        )
        conditions = json.loads(shown.stdout).get("status", {}).get("conditions") or [{}]
        return str(conditions[-1].get("type", ""))

    wait_for(lambda: state() == "Running", timeout=60)
    pods = kubectl(training_server, "get", "pods", "-l", "training.kubeflow.org/job-name=tensorflow-mnist",
                   "-o", "name", namespace=NAMESPACE)  # fmt: skip
    assert sorted(pods.stdout.split()) == [
        "pod/tensorflow-mnist-launcher", "pod/tensorflow-mnist-worker-0", "pod/tensorflow-mnist-worker-1"
    ]  # fmt: skip
    table = kubectl(training_server, "get", "mpijobs", namespace=NAMESPACE)
    assert table.stdout.split()[:3] == ["NAME", "STATE", "AGE"]
    deleted = kubectl(training_server, "delete", "-f", str(path), namespace=NAMESPACE)
    assert 'mpijob.kubeflow.org "tensorflow-mnist" deleted' in deleted.stdout

    def no_pods() -> bool:
        left = kubectl(training_server, "get", "pods", "-o", "name", namespace=NAMESPACE)
        return "tensorflow-mnist" not in left.stdout

    wait_for(no_pods, timeout=30)
