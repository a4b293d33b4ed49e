"""The official ``kubernetes`` client creates, lists, watches, patches and deletes each
workflow kind through CustomObjectsApi, as a user's script would."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import yaml
from kubernetes import client, config, watch  # type: ignore[import-untyped]
from kubernetes.client.rest import ApiException  # type: ignore[import-untyped]

from flow.apps import EXAMPLES_DIR
from tests.kube.server_kit import KubeServer

NS = "flow-client"


@pytest.fixture
def api(flow_server: KubeServer) -> Iterator[client.ApiClient]:
    """Return an API client made from the kubeconfig."""
    with config.new_client_from_config(config_file=str(flow_server.kubeconfig)) as api_client:
        yield api_client


def test_each_kind_is_created_listed_watched_patched_and_deleted(api: client.ApiClient) -> None:
    objects = client.CustomObjectsApi(api)
    documents = list(yaml.safe_load_all((EXAMPLES_DIR / "jobflow-diamond.yaml").read_text()))
    documents.append(yaml.safe_load((EXAMPLES_DIR / "cronjob.yaml").read_text()))
    for document in documents:
        group, version = document["apiVersion"].split("/")
        plural = document["kind"].lower() + "s"
        document["metadata"].pop("namespace", None)
        created = objects.create_namespaced_custom_object(group, version, NS, plural, document)
        assert created["metadata"]["uid"]
    listed = objects.list_namespaced_custom_object(
        "flow.volcano.sh", "v1alpha1", NS, "jobtemplates"
    )
    assert listed["kind"] == "JobTemplateList"
    assert [item["metadata"]["name"] for item in listed["items"]] == list("abcde")
    assert listed["items"][0]["spec"]["maxRetry"] == 3  # the CRD's default, filled in

    stream = watch.Watch()
    phases: list[str] = []
    for event in stream.stream(objects.list_namespaced_custom_object, "flow.volcano.sh",
                               "v1alpha1", NS, "jobflows", timeout_seconds=60):  # fmt: skip
        phases.append(((event["object"].get("status") or {}).get("state") or {}).get("phase", ""))
        if phases[-1] in ("Running", "Succeed"):
            stream.stop()
    assert phases[-1] in ("Running", "Succeed")

    scheduled = ""  # the cron job's first run, seen through a watch of its status
    for event in stream.stream(objects.list_namespaced_custom_object, "batch.volcano.sh",
                               "v1alpha1", NS, "cronjobs", timeout_seconds=60):  # fmt: skip
        scheduled = (event["object"].get("status") or {}).get("lastScheduleTime", "")
        if scheduled:
            stream.stop()
    assert scheduled
    patched = objects.patch_namespaced_custom_object(
        "batch.volcano.sh", "v1alpha1", NS, "cronjobs", "volcano-cronjob-example",
        {"spec": {"suspend": True}},
    )  # fmt: skip
    assert patched["spec"]["suspend"] is True
    with pytest.raises(ApiException) as refused:
        objects.patch_namespaced_custom_object(
            "batch.volcano.sh", "v1alpha1", NS, "cronjobs", "volcano-cronjob-example",
            {"spec": {"concurrencyPolicy": "Sometimes"}},
        )  # fmt: skip
    assert refused.value.status == 422
    assert "concurrencyPolicy" in refused.value.body
    targets = [("flow.volcano.sh", "jobflows", "test"),
               ("batch.volcano.sh", "cronjobs", "volcano-cronjob-example"),
               *(("flow.volcano.sh", "jobtemplates", name) for name in "abcde")]  # fmt: skip
    for group, plural, name in targets:
        objects.delete_namespaced_custom_object(group, "v1alpha1", NS, plural, name)
    left = objects.list_namespaced_custom_object("flow.volcano.sh", "v1alpha1", NS, "jobtemplates")
    assert left["items"] == []
    with pytest.raises(ApiException) as gone:
        objects.get_namespaced_custom_object("flow.volcano.sh", "v1alpha1", NS, "jobflows", "test")
    assert gone.value.status == 404
