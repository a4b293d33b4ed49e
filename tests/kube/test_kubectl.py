"""The machine's kubectl, unchanged, against the server with a generated kubeconfig.

Every call runs ``kubectl --kubeconfig ... -n <namespace>`` in a subprocess with
a timeout; watches run in the background and are always stopped.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import yaml

from tests.kube.server_kit import (
    EXAMPLES,
    JOB_FILES,
    KUBECTL,
    KubeServer,
    Watcher,
    kubectl,
    wait_for,
)

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")


def _generation(server: KubeServer, kind: str, name: str, namespace: str) -> str:
    """Return ``metadata.generation``: it moves with the spec (status writes leave it)."""
    done = kubectl(
        server, "get", kind, name, "-o", "jsonpath={.metadata.generation}", namespace=namespace
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("path", JOB_FILES, ids=lambda p: p.stem)
def test_apply_twice_creates_then_changes_nothing(kube_server: KubeServer, path: Path) -> None:
    namespace = "kubectl-apply"
    name = yaml.safe_load(path.read_text())["metadata"]["name"]
    first = kubectl(kube_server, "apply", "-f", str(path), namespace=namespace)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == f"job.batch.volcano.sh/{name} created"
    before = _generation(kube_server, "vcjob", name, namespace)
    assert before == "1"
    second = kubectl(kube_server, "apply", "-f", str(path), namespace=namespace)
    assert second.returncode == 0, second.stderr
    # As against real Volcano: its defaults (task minAvailable, maxRetry) are stored and served,
    # so kubectl's JSON merge patch resends spec.tasks ("configured"); the server finds the spec
    # unchanged and keeps the generation.
    assert second.stdout.strip() == f"job.batch.volcano.sh/{name} configured"
    assert _generation(kube_server, "vcjob", name, namespace) == before
    deleted = kubectl(kube_server, "delete", "-f", str(path), namespace=namespace)
    assert deleted.returncode == 0, deleted.stderr
    assert f'job.batch.volcano.sh "{name}" deleted' in deleted.stdout
    gone = kubectl(kube_server, "get", "vcjob", name, namespace=namespace)
    assert gone.returncode != 0
    assert "NotFound" in gone.stderr or "not found" in gone.stderr


def test_apply_of_a_changed_job_says_configured_and_scales_it(kube_server: KubeServer) -> None:
    namespace = "kubectl-apply-change"
    source = (EXAMPLES / "jobs" / "nginx-sleep.yaml").read_text()
    try:
        first = kubectl(kube_server, "apply", "-f", "-", namespace=namespace, stdin=source)
        assert first.stdout.strip() == "job.batch.volcano.sh/job-1 created", first.stderr
        scaled = source.replace("replicas: 1", "replicas: 2")
        changed = kubectl(kube_server, "apply", "-f", "-", namespace=namespace, stdin=scaled)
        assert changed.returncode == 0, changed.stderr
        assert changed.stdout.strip() == "job.batch.volcano.sh/job-1 configured"
        shown = kubectl(
            kube_server,
            "get",
            "vcjob",
            "job-1",
            "-o",
            "jsonpath={.spec.tasks[0].replicas} {.metadata.generation}",
            namespace=namespace,
        )
        assert shown.stdout == "2 2"
        again = kubectl(kube_server, "apply", "-f", "-", namespace=namespace, stdin=scaled)
        assert again.returncode == 0, again.stderr
        assert _generation(kube_server, "vcjob", "job-1", namespace) == "2"
    finally:
        kubectl(kube_server, "delete", "vcjob", "job-1", namespace=namespace)


QUEUE = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: kubectl-apply-queue
spec:
  weight: {weight}
  reclaimable: true
  capability:
    cpu: "4"
"""
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: kubectl-apply-pod
spec:
  schedulerName: volcano
  containers:
  - name: main
    image: busybox
    resources:
      requests:
        cpu: 100m
"""


def test_apply_twice_of_a_queue_says_unchanged_and_a_new_weight_configured(
    kube_server: KubeServer,
) -> None:
    try:
        first = kubectl(
            kube_server, "apply", "-f", "-", namespace="default", stdin=QUEUE.format(weight=2)
        )
        assert first.stdout.strip() == "queue.scheduling.volcano.sh/kubectl-apply-queue created"
        again = kubectl(
            kube_server, "apply", "-f", "-", namespace="default", stdin=QUEUE.format(weight=2)
        )
        assert again.stdout.strip() == "queue.scheduling.volcano.sh/kubectl-apply-queue unchanged"
        heavier = kubectl(
            kube_server, "apply", "-f", "-", namespace="default", stdin=QUEUE.format(weight=5)
        )
        assert (
            heavier.stdout.strip() == "queue.scheduling.volcano.sh/kubectl-apply-queue configured"
        )
        weight = kubectl(
            kube_server,
            "get",
            "queue",
            "kubectl-apply-queue",
            "-o",
            "jsonpath={.spec.weight}",
            namespace="default",
        )
        assert weight.stdout == "5"
    finally:
        kubectl(kube_server, "delete", "queue", "kubectl-apply-queue", namespace="default")


def test_apply_twice_of_a_pod_says_unchanged(kube_server: KubeServer) -> None:
    namespace = "kubectl-apply-pod"
    try:
        first = kubectl(kube_server, "apply", "-f", "-", namespace=namespace, stdin=POD)
        assert first.stdout.strip() == "pod/kubectl-apply-pod created", first.stderr
        again = kubectl(kube_server, "apply", "-f", "-", namespace=namespace, stdin=POD)
        assert again.stdout.strip() == "pod/kubectl-apply-pod unchanged", again.stderr
    finally:
        kubectl(kube_server, "delete", "pod", "kubectl-apply-pod", namespace=namespace)


def test_apply_twice_of_an_object_kept_as_given_says_unchanged(kube_server: KubeServer) -> None:
    path = EXAMPLES / "queues" / "high-priority-class.yaml"  # created by the fixture's POST
    first = kubectl(kube_server, "apply", "-f", str(path), namespace="default")
    assert first.stdout.strip() == "priorityclass.scheduling.k8s.io/high-priority configured"
    again = kubectl(kube_server, "apply", "-f", str(path), namespace="default")
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "priorityclass.scheduling.k8s.io/high-priority unchanged"


def test_get_priorityclass_prints_kube_apiservers_columns(kube_server: KubeServer) -> None:
    shown = kubectl(kube_server, "get", "priorityclass", "high-priority", namespace="default")

    header, row = (line.split() for line in shown.stdout.splitlines())
    assert header == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    assert (row[:3], row[-1]) == (["high-priority", "1000000", "false"], "PreemptLowerPriority")


def test_get_vcjob_prints_volcanos_columns(kube_server: KubeServer) -> None:
    namespace = "kubectl-get"
    path = EXAMPLES / "jobs" / "tensorflow-dist-mnist.yaml"
    assert kubectl(kube_server, "apply", "-f", str(path), namespace=namespace).returncode == 0
    try:
        shown = kubectl(kube_server, "get", "vcjob", namespace=namespace)
        assert shown.returncode == 0, shown.stderr
        header, *rows = shown.stdout.splitlines()
        assert header.split() == ["NAME", "STATUS", "MINAVAILABLE", "RUNNINGS", "AGE"]
        assert rows[0].split()[0] == "tensorflow-dist-mnist"
        wide = kubectl(kube_server, "get", "vj", "-o", "wide", namespace=namespace)
        assert wide.stdout.splitlines()[0].split()[-1] == "QUEUE"
        assert wide.stdout.splitlines()[1].split()[-1] == "default"
    finally:
        kubectl(kube_server, "delete", "-f", str(path), namespace=namespace)


def test_get_queue_yaml_round_trips(kube_server: KubeServer) -> None:
    shown = kubectl(kube_server, "get", "queue", "-o", "yaml", namespace="default")
    assert shown.returncode == 0, shown.stderr
    listed = yaml.safe_load(shown.stdout)
    queues = {item["metadata"]["name"]: item for item in listed["items"]}
    assert queues["test"]["spec"]["capability"]["cpu"] == "2"
    # Other tests' jobs run in queue "test", and the scheduler writes its status
    # meanwhile: a replace carrying an older resourceVersion is refused with
    # kube-apiserver's Conflict, and kubectl's users read the queue again.
    for _attempt in range(5):
        one = kubectl(kube_server, "get", "queue", "test", "-o", "yaml", namespace="default")
        replaced = kubectl(kube_server, "replace", "-f", "-", namespace="default", stdin=one.stdout)
        if "the object has been modified" not in replaced.stderr:
            break
    assert replaced.returncode == 0, replaced.stderr
    assert replaced.stdout.strip() == "queue.scheduling.volcano.sh/test replaced"


def test_describe_podgroup_shows_its_spec_and_events(kube_server: KubeServer) -> None:
    namespace = "kubectl-describe"
    path = EXAMPLES / "jobs" / "nginx-sleep.yaml"
    assert kubectl(kube_server, "apply", "-f", str(path), namespace=namespace).returncode == 0
    try:
        deadline = time.monotonic() + 30
        listed = kubectl(kube_server, "get", "pg", "-o", "name", namespace=namespace)
        while not listed.stdout.strip() and time.monotonic() < deadline:
            time.sleep(0.5)
            listed = kubectl(kube_server, "get", "pg", "-o", "name", namespace=namespace)
        described = kubectl(kube_server, "describe", "podgroup", namespace=namespace)
        assert described.returncode == 0, described.stderr
        assert "Kind:         PodGroup" in described.stdout
        assert "Min Member:  1" in described.stdout
        assert "Queue:    test" in described.stdout
        assert "Events:" in described.stdout
        events = kubectl(kube_server, "get", "events", namespace=namespace)
        wide = kubectl(kube_server, "get", "events", "-o", "wide", namespace=namespace)
        # kube-apiserver's event columns: no leading NAME; the wide ones end with it.
        assert re.split(r"\s{2,}", events.stdout.splitlines()[0].strip()) == [
            "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"
        ]  # fmt: skip
        assert re.split(r"\s{2,}", wide.stdout.splitlines()[0].strip()) == [
            "LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE",
            "FIRST SEEN", "COUNT", "NAME",
        ]  # fmt: skip
        assert len(events.stdout.splitlines()) > 1, events.stdout  # the job's events, listed
    finally:
        kubectl(kube_server, "delete", "-f", str(path), namespace=namespace)


def test_explain_reads_the_job_schema(kube_server: KubeServer) -> None:
    spec = kubectl(kube_server, "explain", "vcjob.spec", namespace="default")
    assert spec.returncode == 0, spec.stderr
    assert "KIND:       Job" in spec.stdout
    assert "minAvailable\t<integer>" in spec.stdout
    assert "tasks\t<[]Object>" in spec.stdout
    tasks = kubectl(kube_server, "explain", "vcjob.spec.tasks", namespace="default")
    assert "replicas\t<integer>" in tasks.stdout


def test_invalid_job_is_refused_naming_the_field(kube_server: KubeServer) -> None:
    manifest = yaml.safe_load((EXAMPLES / "jobs" / "nginx-sleep.yaml").read_text())
    manifest["metadata"]["name"] = "kubectl-invalid"
    manifest["spec"]["tasks"][0]["replicas"] = -1
    refused = kubectl(
        kube_server, "apply", "-f", "-", namespace="kubectl-bad", stdin=yaml.safe_dump(manifest)
    )
    assert refused.returncode != 0
    assert 'The Job "kubectl-invalid" is invalid' in refused.stderr
    assert "spec.tasks[0].replicas" in refused.stderr
    manifest["spec"]["tasks"][0]["replicas"] = 1
    unknown = dict(manifest, spec={**manifest["spec"], "minAvaliable": 1})
    typo = kubectl(
        kube_server, "apply", "-f", "-", namespace="kubectl-bad", stdin=yaml.safe_dump(unknown)
    )
    assert typo.returncode != 0
    assert "minAvaliable" in typo.stderr


def test_server_side_apply_creates_then_updates(kube_server: KubeServer) -> None:
    namespace = "kubectl-ssa"
    path = str(EXAMPLES / "jobs" / "nginx-sleep.yaml")
    try:
        first = kubectl(kube_server, "apply", "--server-side", "-f", path, namespace=namespace)
        assert first.returncode == 0, first.stderr
        assert first.stdout.strip() == "job.batch.volcano.sh/job-1 serverside-applied"
        again = kubectl(kube_server, "apply", "--server-side", "-f", path, namespace=namespace)
        assert again.returncode == 0, again.stderr
    finally:
        gone = kubectl(
            kube_server, "delete", "vcjob", "job-1", "--cascade=foreground", namespace=namespace
        )
    assert gone.stdout.strip() == 'job.batch.volcano.sh "job-1" deleted', gone.stderr


def test_delete_cascade_orphan_leaves_the_jobs_pods(kube_server: KubeServer) -> None:
    namespace = "kubectl-orphan"
    path = str(EXAMPLES / "jobs" / "nginx-sleep.yaml")
    try:
        assert kubectl(kube_server, "apply", "-f", path, namespace=namespace).returncode == 0
        wait_for(lambda: kubectl(kube_server, "get", "pods", "-o", "name",
                                 namespace=namespace).stdout.strip(), timeout=30)  # fmt: skip
        orphan = kubectl(
            kube_server, "delete", "vcjob", "job-1", "--cascade=orphan", namespace=namespace
        )
        assert orphan.stdout.strip() == 'job.batch.volcano.sh "job-1" deleted', orphan.stderr
        pods = kubectl(kube_server, "get", "pods", "-o", "name", namespace=namespace)
        assert "pod/job-1-" in pods.stdout
    finally:
        kubectl(kube_server, "delete", "pods", "--all", namespace=namespace)


def test_watches_see_pending_running_completed(
    kube_server: KubeServer, watchers: list[Watcher]
) -> None:
    namespace = "kubectl-watch"
    path = str(EXAMPLES / "jobs" / "nginx-sleep.yaml")
    jobs = Watcher(kube_server, "get", "vcjob", "-w", namespace=namespace)
    pods = Watcher(kube_server, "get", "pods", "-w", namespace=namespace)
    watchers += [jobs, pods]
    time.sleep(1)  # both watches are open before the job exists
    try:
        assert kubectl(kube_server, "apply", "-f", path, namespace=namespace).returncode == 0

        def job_in(phase: str):  # type: ignore[no-untyped-def]
            return lambda line: line.split()[:2] == ["job-1", phase]

        assert pods.wait_for(lambda line: "job-1-nginx-0" in line and "Running" in line), pods.lines
        assert jobs.wait_for(job_in("Running")), jobs.lines
        assert jobs.wait_for(job_in("Completed"), timeout=90), jobs.lines
        pod_phases = [line.split()[2] for line in pods.lines if line.startswith("job-1-nginx-0")]
        assert pod_phases[0] != "Running" or len(set(pod_phases)) > 1, pod_phases
    finally:
        kubectl(kube_server, "delete", "-f", path, namespace=namespace)
