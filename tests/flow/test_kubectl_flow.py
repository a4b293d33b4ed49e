"""The machine's kubectl, unchanged, with Volcano's JobFlow and CronJob examples: apply, get
with the CRDs' columns, explain, watch, the flow running to Succeed, the cron job firing on the
cluster's clock, a refusal in Volcano's words, delete."""

from __future__ import annotations

import json

from flow.apps import EXAMPLES_DIR
from tests.kube.server_kit import KubeServer, Watcher, kubectl, wait_for

NS = "flow-kubectl"


def _ok(server: KubeServer, *args: str, namespace: str = NS, stdin: str | None = None) -> str:
    done = kubectl(server, *args, namespace=namespace, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_volcanos_jobflow_example_applies_and_runs_to_succeed(flow_server: KubeServer) -> None:
    # The example's flow names the default namespace; its templates name none.
    watcher = Watcher(flow_server, "get", "jobflows", "-w", namespace="default")
    try:
        out = _ok(flow_server, "apply", "-f", str(EXAMPLES_DIR / "jobflow-diamond.yaml"),
                  namespace="default")  # fmt: skip
        assert "jobtemplate.flow.volcano.sh/a created" in out
        assert "jobflow.flow.volcano.sh/test created" in out
        assert watcher.wait_for(lambda line: line.split()[:2] == ["test", "Succeed"], timeout=120)
    finally:
        watcher.stop()
    table = _ok(flow_server, "get", "jf", namespace="default")
    assert table.split("\n")[0].split() == ["NAME", "STATUS", "AGE"]
    assert table.split("\n")[1].split()[:2] == ["test", "Succeed"]
    flow = json.loads(_ok(flow_server, "get", "jobflow", "test", "-o", "json", namespace="default"))
    assert flow["status"]["completedJobs"] == ["test-a", "test-b", "test-c", "test-d", "test-e"]
    # jobRetainPolicy: delete takes the jobs away once the flow succeeded (the status keeps them).
    wait_for(lambda: "test-a" not in _ok(flow_server, "get", "vcjob", namespace="default"))
    assert [entry["name"] for entry in flow["status"]["jobStatusList"]] == [
        "test-a", "test-b", "test-c", "test-d", "test-e"]  # fmt: skip
    assert all(e["state"] == "Completed" for e in flow["status"]["jobStatusList"])
    templates = _ok(flow_server, "get", "jt", namespace="default")
    assert templates.split("\n")[0].split() == ["NAME", "AGE"]
    _ok(flow_server, "delete", "jobflow", "test", namespace="default")
    assert "test" not in _ok(flow_server, "get", "jobflows", namespace="default")


def test_explain_describes_the_flow_and_cron_fields(flow_server: KubeServer) -> None:
    flows = _ok(flow_server, "explain", "jobflow.spec.flows")
    assert "KIND:       JobFlow" in flows
    assert "dependsOn\t<Object>" in flows
    cron = _ok(flow_server, "explain", "cronjob.spec", "--api-version=batch.volcano.sh/v1alpha1")
    assert "concurrencyPolicy\t<string>" in cron
    assert "jobTemplate\t<Object>" in cron


def test_a_flow_that_is_not_a_dag_is_refused_in_volcanos_words(flow_server: KubeServer) -> None:
    cyclic = """apiVersion: flow.volcano.sh/v1alpha1
kind: JobFlow
metadata: {name: loop}
spec:
  flows:
    - {name: a, dependsOn: {targets: [b]}}
    - {name: b, dependsOn: {targets: [a]}}
"""
    done = kubectl(flow_server, "create", "-f", "-", namespace=NS, stdin=cyclic)
    assert done.returncode != 0
    assert "jobflow Flow is not DAG" in done.stderr


def test_volcanos_cron_job_example_fires_on_the_clusters_clock(flow_server: KubeServer) -> None:
    out = _ok(flow_server, "apply", "-f", str(EXAMPLES_DIR / "cronjob.yaml"), namespace="flow-cron")
    assert "cronjob.batch.volcano.sh/volcano-cronjob-example created" in out
    assert _ok(flow_server, "get", "cronvj", namespace="flow-cron").split()[:2] == ["NAME", "AGE"]

    def made() -> list[str]:
        jobs = json.loads(_ok(flow_server, "get", "vcjob", "-o", "json", namespace="flow-cron"))
        return [
            job["metadata"]["name"]
            for job in jobs["items"]
            if "volcano.sh/cronjob-scheduled-timestamp" in job["metadata"].get("annotations", {})
        ]

    names = wait_for(made, timeout=60)
    assert names[0].startswith("volcano-cronjob-example-")
    cron = json.loads(_ok(flow_server, "get", "cronjob", "volcano-cronjob-example", "-o", "json",
                          namespace="flow-cron"))  # fmt: skip
    assert cron["status"]["lastScheduleTime"]
    _ok(flow_server, "patch", "cronjob", "volcano-cronjob-example", "--type=merge",
        "-p", '{"spec": {"suspend": true}}', namespace="flow-cron")  # fmt: skip
    assert json.loads(_ok(flow_server, "get", "cronvj", "volcano-cronjob-example", "-o", "json",
                          namespace="flow-cron"))["spec"]["suspend"] is True  # fmt: skip
