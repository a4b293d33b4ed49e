"""Deleting many jobs at once from real clients: ``kubectl delete vcjob --all`` and the
``kubernetes`` package's ``delete_collection_namespaced_custom_object`` (deletecollection)."""

from __future__ import annotations

import subprocess

import pytest
import yaml
from kubernetes import client, config  # type: ignore[import-untyped]

from tests.kube.server_kit import EXAMPLES, KUBECTL, KubeServer

GROUP, VERSION, PLURAL = "batch.volcano.sh", "v1alpha1", "jobs"


def _jobs(names: list[str], app: str) -> str:
    """Return a multi-document YAML of nginx-sleep jobs called ``names`` labelled ``app``."""
    manifest = yaml.safe_load((EXAMPLES / "jobs" / "nginx-sleep.yaml").read_text())
    documents = []
    for name in names:
        manifest["metadata"] = {"name": name, "labels": {"app": app}}
        documents.append(yaml.safe_dump(manifest))
    return "---\n".join(documents)


def _kubectl(server: KubeServer, namespace: str, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        [str(KUBECTL), "--kubeconfig", str(server.kubeconfig), "-n", namespace, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_delete_all_vcjobs_empties_the_namespace(kube_server: KubeServer) -> None:
    namespace = "kubectl-delete-all"
    _kubectl(kube_server, namespace, "apply", "-f", "-", stdin=_jobs(["a", "b", "c"], "x"))

    deleted = _kubectl(kube_server, namespace, "delete", "vcjob", "--all")

    assert sorted(deleted.splitlines()) == [
        f'job.batch.volcano.sh "{name}" deleted' for name in ("a", "b", "c")
    ]
    assert _kubectl(kube_server, namespace, "get", "vcjob", "-o", "name") == ""


def test_python_client_deletes_the_collection_by_label(kube_server: KubeServer) -> None:
    namespace = "py-delete-collection"
    with config.new_client_from_config(config_file=str(kube_server.kubeconfig)) as api:
        jobs = client.CustomObjectsApi(api)
        for app, names in (("x", ["a", "b"]), ("y", ["c"])):
            for document in yaml.safe_load_all(_jobs(names, app)):
                jobs.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, document)

        dry = jobs.delete_collection_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURAL, label_selector="app=x", dry_run="All"
        )
        assert [item["metadata"]["name"] for item in dry["items"]] == ["a", "b"]
        deleted = jobs.delete_collection_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURAL, label_selector="app=x"
        )

        assert deleted["kind"] == "JobList"
        assert [item["metadata"]["name"] for item in deleted["items"]] == ["a", "b"]
        left = jobs.list_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL)
        assert [item["metadata"]["name"] for item in left["items"]] == ["c"]
