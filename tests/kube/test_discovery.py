"""What clients read before any resource: version, discovery, OpenAPI, content negotiation."""

from __future__ import annotations

import json
from typing import Any

from tests.kube.server_kit import KubeServer

AGGREGATED = (
    "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
)
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


def _resources(server: KubeServer, group_version: str) -> dict[str, dict[str, Any]]:
    path = f"/apis/{group_version}" if "/" in group_version else f"/api/{group_version}"
    answer = server.json("GET", path)
    assert answer["kind"] == "APIResourceList"
    return {item["name"]: item for item in answer["resources"]}


def test_version_is_public_and_discovery_needs_a_token(kube_server: KubeServer) -> None:
    status, _, raw = kube_server.call("GET", "/version", token=None)
    assert status == 200
    assert json.loads(raw)["major"] == "1"
    status, _headers, raw = kube_server.call("GET", "/apis", token=None)
    assert status == 401
    assert json.loads(raw)["reason"] == "Unauthorized"


def test_groups_list_volcanos_groups_with_their_versions(kube_server: KubeServer) -> None:
    groups = {g["name"]: g for g in kube_server.json("GET", "/apis")["groups"]}
    assert groups["batch.volcano.sh"]["preferredVersion"]["groupVersion"] == (
        "batch.volcano.sh/v1alpha1"
    )
    assert groups["scheduling.volcano.sh"]["versions"][0]["version"] == "v1beta1"
    assert {"bus.volcano.sh", "scheduling.k8s.io"} <= set(groups)
    assert kube_server.json("GET", "/api")["versions"] == ["v1"]


def test_resources_carry_volcanos_short_names_and_scopes(kube_server: KubeServer) -> None:
    batch = _resources(kube_server, "batch.volcano.sh/v1alpha1")
    assert batch["jobs"]["shortNames"] == ["vcjob", "vj"]
    assert batch["jobs"]["kind"] == "Job"
    assert batch["jobs"]["namespaced"] is True
    assert "patch" in batch["jobs"]["verbs"]
    assert batch["jobs/status"]["verbs"] == ["get", "patch", "update"]
    scheduling = _resources(kube_server, "scheduling.volcano.sh/v1beta1")
    assert scheduling["podgroups"]["shortNames"] == ["pg", "podgroup-v1beta1"]
    assert scheduling["queues"]["shortNames"] == ["q", "queue-v1beta1"]
    assert scheduling["queues"]["namespaced"] is False
    core = _resources(kube_server, "v1")
    assert core["pods"]["categories"] == ["all"]
    assert core["pods/log"]["verbs"] == ["get"]


def test_unknown_group_version_is_a_404_status(kube_server: KubeServer) -> None:
    status, _, raw = kube_server.call("GET", "/apis/nothing.example.com/v9")
    assert status == 404
    assert json.loads(raw)["kind"] == "Status"


def test_aggregated_discovery_is_declined_with_the_plain_list(kube_server: KubeServer) -> None:
    status, headers, raw = kube_server.call("GET", "/apis", headers={"Accept": AGGREGATED})
    assert status == 200
    assert headers["Content-Type"] == "application/json"  # not ...;as=APIGroupDiscoveryList
    assert json.loads(raw)["kind"] == "APIGroupList"


def test_openapi_v3_index_leads_to_each_group_versions_schemas(kube_server: KubeServer) -> None:
    index = kube_server.json("GET", "/openapi/v3")["paths"]
    url = index["apis/batch.volcano.sh/v1alpha1"]["serverRelativeURL"]
    assert "api/v1" in index
    document = kube_server.json("GET", url)
    job = document["components"]["schemas"]["sh.volcano.batch.v1alpha1.Job"]
    tasks = job["properties"]["spec"]["properties"]["tasks"]
    assert tasks["type"] == "array"
    assert "replicas" in tasks["items"]["properties"]
    patch = document["paths"]["/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs/{name}"]
    names = [p["name"] for p in patch["patch"]["parameters"]]
    assert "fieldValidation" in names  # so kubectl leaves validation to the server


def test_table_answers_the_crds_printer_columns(kube_server: KubeServer) -> None:
    answer = kube_server.json(
        "GET", "/apis/scheduling.volcano.sh/v1beta1/queues", headers={"Accept": TABLE}
    )
    assert answer["kind"] == "Table"
    assert [c["name"] for c in answer["columnDefinitions"]] == ["Name", "PARENT"]
    names = [row["cells"][0] for row in answer["rows"]]
    assert {"default", "test"} <= set(names)
    assert answer["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    plain = kube_server.json("GET", "/apis/scheduling.volcano.sh/v1beta1/queues")
    assert plain["kind"] == "QueueList"


def test_protobuf_requests_get_json(kube_server: KubeServer) -> None:
    accept = {"Accept": "application/vnd.kubernetes.protobuf, application/json"}
    status, headers, raw = kube_server.call("GET", "/api/v1/nodes", headers=accept)
    assert status == 200
    assert headers["Content-Type"].startswith("application/json")
    assert json.loads(raw)["kind"] == "NodeList"
