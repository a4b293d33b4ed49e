"""``/openapi/v2`` and ``/openapi/v3`` as kubectl reads them: every served kind described in
both, v2 negotiated as kube-apiserver does (gnostic's protobuf, which is all kubectl asks for),
and kubectl validating, explaining and replacing through them with validation on."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from tests.kube.server_kit import KUBECTL, KubeServer, kubectl

V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
# What kubectl 1.32 (client-go's discovery) sends, and nothing else.
KUBECTL_V2_ACCEPT = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"

needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")


def _served_kinds(server: KubeServer) -> list[tuple[str, str, str]]:
    """Return (group version, plural, kind) of every resource discovery lists (no subresources)."""
    group_versions = ["v1"] + [
        version["groupVersion"]
        for group in server.json("GET", "/apis")["groups"]
        for version in group["versions"]
    ]
    found = []
    for group_version in group_versions:
        path = f"/apis/{group_version}" if "/" in group_version else f"/api/{group_version}"
        for item in server.json("GET", path)["resources"]:
            if "/" not in item["name"]:
                found.append((group_version, item["name"], item["kind"]))
    return found


def _gvk(group_version: str, kind: str) -> dict[str, str]:
    group, _, version = group_version.rpartition("/")
    return {"group": group, "version": version, "kind": kind}


def _fields(raw: bytes) -> list[tuple[int, Any]]:
    """Decode one protobuf message's fields: (number, bytes of a length-delimited or int)."""
    fields: list[tuple[int, Any]] = []
    at = 0

    def varint() -> int:
        nonlocal at
        value, shift = 0, 0
        while True:
            byte = raw[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while at < len(raw):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 2:
            size = varint()
            fields.append((number, raw[at : at + size]))
            at += size
        elif wire == 0:
            fields.append((number, varint()))
        elif wire == 1:
            fields.append((number, raw[at : at + 8]))
            at += 8
        else:
            raise AssertionError(f"unexpected wire type {wire}")
    return fields


def test_kubectls_protobuf_request_gets_gnostics_document(kube_server: KubeServer) -> None:
    status, headers, raw = kube_server.call(
        "GET", "/openapi/v2", headers={"Accept": KUBECTL_V2_ACCEPT}
    )
    assert status == 200
    assert headers["Content-Type"] == V2_PROTOBUF
    # (the console's LocaleMiddleware adds Accept-Language and Cookie; the API ignores them)
    assert "Accept" in [part.strip() for part in headers["Vary"].split(",")]
    document = kube_server.json("GET", "/openapi/v2", headers={"Accept": "application/json"})
    top = _fields(raw)
    assert (1, b"2.0") in top  # swagger
    # definitions (9): NamedSchema entries (1), each named in its field 1.
    definitions = next(value for number, value in top if number == 9)
    names = [dict(_fields(entry))[1].decode() for _, entry in _fields(definitions)]
    assert names == list(document["definitions"])
    # paths (8): NamedPathItem entries (2); the Job's item path has a PATCH (PathItem field 8).
    paths = next(value for number, value in top if number == 8)
    items = {dict(_fields(e))[1].decode(): dict(_fields(e))[2] for _, e in _fields(paths)}
    assert set(items) == set(document["paths"])
    job = items["/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs/{name}"]
    assert 8 in dict(_fields(job))
    # The same ETag for both: the answer varies by Accept only.
    _, json_headers, _ = kube_server.call("GET", "/openapi/v2")
    assert json_headers["Content-Type"] == "application/json"
    assert json_headers["ETag"] == headers["ETag"]
    unchanged, _, body = kube_server.call(
        "GET",
        "/openapi/v2",
        headers={"Accept": KUBECTL_V2_ACCEPT, "If-None-Match": headers["ETag"]},
    )
    assert (unchanged, body) == (304, b"")


@pytest.mark.parametrize(
    ("accept", "answered"),
    [
        ("", "application/json"),
        ("*/*", "application/json"),
        ("application/json", "application/json"),
        (V2_PROTOBUF, V2_PROTOBUF),
        # The first clause by quality wins, as kube-openapi's goautoneg orders them.
        (f"application/json;q=0.5, {KUBECTL_V2_ACCEPT}", V2_PROTOBUF),
        (f"{KUBECTL_V2_ACCEPT};q=0.2, application/json", "application/json"),
        ("application/vnd.kubernetes.protobuf, application/*", "application/json"),
    ],
)
def test_v2_is_negotiated_as_kube_openapi_does(
    kube_server: KubeServer, accept: str, answered: str
) -> None:
    status, headers, _ = kube_server.call("GET", "/openapi/v2", headers={"Accept": accept})
    assert (status, headers["Content-Type"]) == (200, answered)


def test_v2_refuses_a_type_it_does_not_serve(kube_server: KubeServer) -> None:
    accept = {"Accept": "application/vnd.kubernetes.protobuf"}
    status, _, _ = kube_server.call("GET", "/openapi/v2", headers=accept)
    assert status == 406


def test_every_served_kind_is_in_both_documents(kube_server: KubeServer) -> None:
    v2 = kube_server.json("GET", "/openapi/v2")["definitions"]
    v2_kinds = [
        gvk for schema in v2.values() for gvk in schema.get("x-kubernetes-group-version-kind", [])
    ]
    index = kube_server.json("GET", "/openapi/v3")["paths"]
    served = _served_kinds(kube_server)
    assert (
        "scheduler.volcano.sh/v1alpha1",
        "schedulerconfigurations",
        "SchedulerConfiguration",
    ) in served
    assert len(served) > 15
    documents: dict[str, Any] = {}
    for group_version, plural, kind in served:
        gvk = _gvk(group_version, kind)
        assert gvk in v2_kinds, (plural, gvk)
        path = f"apis/{group_version}" if "/" in group_version else f"api/{group_version}"
        assert path in index, path
        if path not in documents:
            documents[path] = kube_server.json("GET", index[path]["serverRelativeURL"])
        schemas = documents[path]["components"]["schemas"].values()
        assert any(gvk in s.get("x-kubernetes-group-version-kind", []) for s in schemas), gvk
        # Each listed resource has its read path, tagged with its kind.
        reads = [
            operations["get"]
            for operations in documents[path]["paths"].values()
            if "get" in operations
        ]
        assert any(op["x-kubernetes-group-version-kind"] == gvk for op in reads), gvk  # fmt: skip


def test_a_resource_documents_the_operations_of_its_verbs(kube_server: KubeServer) -> None:
    index = kube_server.json("GET", "/openapi/v3")["paths"]
    scheduler = kube_server.json(
        "GET", index["apis/scheduler.volcano.sh/v1alpha1"]["serverRelativeURL"]
    )["paths"]
    item = scheduler["/apis/scheduler.volcano.sh/v1alpha1/schedulerconfigurations/{name}"]
    assert set(item) == {"get", "put", "patch"}  # no delete: versions stay
    assert "fieldValidation" in [p["name"] for p in item["patch"]["parameters"]]
    metrics = kube_server.json("GET", index["apis/metrics.k8s.io/v1beta1"]["serverRelativeURL"])
    assert set(metrics["paths"]["/apis/metrics.k8s.io/v1beta1/nodes/{name}"]) == {"get"}


# -- through kubectl ------------------------------------------------------------------------


@needs_kubectl
def test_kubectl_replaces_the_scheduler_configuration_with_validation_on(
    kube_server: KubeServer,
) -> None:
    shown = kubectl(kube_server, "get", "schedulerconfiguration", "active", "-o", "yaml")
    assert shown.returncode == 0, shown.stderr
    manifest = yaml.safe_load(shown.stdout)
    manifest["metadata"] = {"name": "active"}
    # A conf comment: a new version the scheduler runs exactly as before.
    manifest["spec"]["conf"] = "# replaced by kubectl\n" + manifest["spec"]["conf"]
    replaced = kubectl(kube_server, "replace", "-f", "-", stdin=yaml.safe_dump(manifest))
    assert replaced.returncode == 0, replaced.stderr
    assert "replaced" in replaced.stdout
    active = kubectl(
        kube_server, "get", "schedulerconfiguration", "active", "-o", "jsonpath={.spec.conf}"
    )
    assert active.stdout.startswith("# replaced by kubectl\n")
    manifest["spec"]["bogus"] = 1
    refused = kubectl(kube_server, "replace", "-f", "-", stdin=yaml.safe_dump(manifest))
    assert refused.returncode == 1
    assert "spec.bogus: unknown field" in refused.stderr
    assert "--validate=false" not in refused.stderr  # the server judged it, not kubectl


@needs_kubectl
def test_kubectl_explains_every_served_kind_from_v3_and_v2(kube_server: KubeServer) -> None:
    # By kind: kubectl's v2 explain maps ``nodes`` to the core kind whatever --api-version says.
    for group_version, _plural, kind in _served_kinds(kube_server):
        for output in ("plaintext", "plaintext-openapiv2"):
            explained = kubectl(
                kube_server,
                "explain",
                kind.lower(),
                f"--api-version={group_version}",
                f"--output={output}",
            )
            assert explained.returncode == 0, (kind, output, explained.stderr)
            heading = [
                line.split()[1]
                for line in explained.stdout.splitlines()[:3]
                if line.startswith("KIND:")
            ]
            assert heading == [kind], (kind, output, explained.stdout[:200])
            assert "metadata" in explained.stdout, (kind, output)


@needs_kubectl
def test_kubectl_explains_the_scheduler_configurations_fields(kube_server: KubeServer) -> None:
    explained = kubectl(kube_server, "explain", "schedulerconfigurations.spec")
    assert explained.returncode == 0, explained.stderr
    assert "GROUP:      scheduler.volcano.sh" in explained.stdout
    assert "conf\t<string>" in explained.stdout
    v2 = kubectl(kube_server, "explain", "vcjob.spec.tasks", "--output=plaintext-openapiv2")
    assert v2.returncode == 0, v2.stderr
    assert "RESOURCE: tasks <[]Object>" in v2.stdout
    assert "replicas\t<integer>" in v2.stdout


BOGUS: dict[str, dict[str, Any]] = {
    "core": {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bogus-pod"},
        "spec": {"bogus": 1, "containers": [{"name": "c", "image": "busybox"}]},
    },
    "volcano": {
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": "bogus-job"},
        "spec": {"minAvailable": 1, "bogus": 1, "tasks": [{
            "name": "t", "replicas": 1,
            "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}},
        }]},
    },
}  # fmt: skip


@needs_kubectl
@pytest.mark.parametrize("kind_class", sorted(BOGUS))
def test_kubectl_strict_create_of_an_unknown_field_is_refused(
    kube_server: KubeServer, kind_class: str
) -> None:
    manifest = BOGUS[kind_class]
    created = kubectl(
        kube_server,
        "create",
        "--validate=strict",
        "-f",
        "-",
        namespace="kubectl-invalid",
        stdin=json.dumps(manifest),
    )
    assert created.returncode == 1
    # kubectl found fieldValidation on the kind's PATCH and left the check to the server,
    # which names the field.
    name = manifest["metadata"]["name"]
    assert created.stderr.strip() == (
        f'The {manifest["kind"]} "{name}" is invalid: spec.bogus: unknown field'
    )
    resource = "pods" if kind_class == "core" else "jobs.batch.volcano.sh"
    gone = kubectl(kube_server, "get", resource, name, namespace="kubectl-invalid")
    assert gone.returncode == 1
