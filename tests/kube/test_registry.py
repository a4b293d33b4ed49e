"""The registry is what the API server serves: a kind is discovered, printed and authorised
because an app registered it, and only then."""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import Client

from accounts.roles import EVERYONE, OPERATORS
from accounts.services import token_create
from apis.errors import ManifestError
from core.models import PriorityClass
from kube import registry
from kube.manifests import load_manifest
from kube.registry import WRITE_VERBS, AccessRule
from tests.kube.registry_kit import GROUP, WIDGET_ENTRY, WIDGETS_PATH, registry_restored
from tests.kube.server_kit import KUBECTL
from tests.kube.tls import TLSRelay, self_signed
from tests.training.kit import pytorch

pytestmark = pytest.mark.django_db

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


@pytest.fixture
def operator(console_login: Callable[..., Any], settings: Any) -> Client:
    """An operator, with the widgets routed beside the site's paths."""
    settings.ROOT_URLCONF = "tests.kube.registry_kit"
    client: Client = console_login("olga", "operator")
    return client


def _groups(client: Client) -> list[str]:
    return [group["name"] for group in client.get("/apis").json()["groups"]]


def test_a_kind_registered_at_run_time_is_discovered_and_printed_as_kubectl_asks(
    operator: Client,
) -> None:
    with registry_restored("widgets"):
        registry.register_kind(
            WIDGET_ENTRY, access=AccessRule(EVERYONE, OPERATORS, namespaced=False)
        )
        assert GROUP in _groups(operator)
        resources = operator.get(f"/apis/{GROUP}/v1").json()["resources"]
        assert resources == [
            {
                "name": "widgets", "singularName": "widget", "namespaced": False, "kind": "Widget",
                "verbs": list(WRITE_VERBS), "shortNames": ["wd"],
            }
        ]  # fmt: skip
        created = operator.post(
            WIDGETS_PATH,
            json.dumps({"apiVersion": f"{GROUP}/v1", "kind": "Widget",
                        "metadata": {"name": "blue"}, "value": 7}),
            content_type="application/json",
        )  # fmt: skip
        assert created.status_code == 201, created.content
        table = operator.get(WIDGETS_PATH, HTTP_ACCEPT=TABLE).json()
        assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Value", "Age"]
        rows = {row["cells"][0]: row["cells"][1] for row in table["rows"]}
        assert rows["blue"] == 7  # what `kubectl get wd` prints
        document = operator.get("/openapi/v2").json()
        assert f"{WIDGETS_PATH}/{{name}}" in document["paths"]
    assert GROUP not in _groups(operator)
    assert operator.get(f"/apis/{GROUP}/v1").status_code == 404


def _kubeconfig(directory: Path, url: str, ca: Path, token: str) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {
            "server": url, "certificate-authority-data": base64.b64encode(ca.read_bytes()).decode()
        }}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "c",
    }  # fmt: skip
    path = directory / "kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
@pytest.mark.django_db(transaction=True)
def test_kubectl_gets_a_kind_registered_at_run_time_by_its_short_name(
    live_server: Any, settings: Any, django_user_model: Any, tmp_path: Path
) -> None:
    settings.ROOT_URLCONF = "tests.kube.registry_kit"
    user = django_user_model.objects.create_superuser("olga", "olga@example.com", "pw-olga")
    _, token = token_create(user=user, name="kubectl")
    PriorityClass.objects.create(name="blue", value=7)  # a widget, as stored
    cert, key = self_signed(tmp_path)
    relay = TLSRelay(int(live_server.url.rsplit(":", 1)[1]), cert, key).start()
    kubeconfig = _kubeconfig(tmp_path, relay.url, cert, token)
    command = [str(KUBECTL), "--kubeconfig", str(kubeconfig), "--cache-dir"]
    try:
        with registry_restored("widgets"):
            registry.register_kind(
                WIDGET_ENTRY, access=AccessRule(EVERYONE, OPERATORS, namespaced=False)
            )
            done = subprocess.run(
                [*command, str(tmp_path / "served"), "get", "wd"],
                capture_output=True, text=True, timeout=30, check=False,
            )  # fmt: skip
        # A fresh discovery cache: kubectl learns names from discovery, which no longer has it.
        gone = subprocess.run(
            [*command, str(tmp_path / "withdrawn"), "get", "wd"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    finally:
        relay.stop()
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["NAME", "VALUE", "AGE"]
    assert any(line.split()[:2] == ["blue", "7"] for line in lines)
    assert gone.returncode != 0
    assert 'the server doesn\'t have a resource type "wd"' in gone.stderr


def test_a_kind_without_an_access_rule_is_refused_to_every_role(operator: Client) -> None:
    with registry_restored():
        registry.register_kind(WIDGET_ENTRY)
        response = operator.get(WIDGETS_PATH, HTTP_ACCEPT=TABLE)
        assert response.status_code == 403
        assert response.json()["message"] == 'User "olga" cannot read widgets'
        body = {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": "w"}}
        created = operator.post(
            WIDGETS_PATH, json.dumps({**body, "value": 7}), content_type="application/json"
        )
        assert created.status_code == 403
        assert created.json()["message"] == 'User "olga" cannot write widgets'


def test_kubeflow_kinds_are_served_only_because_the_training_app_registered_them(
    operator: Client,
) -> None:
    with registry_restored():
        for plural in ("pytorchjobs", "tfjobs", "mpijobs"):
            registry.unregister_kind("kubeflow.org", plural)
        assert "kubeflow.org" not in _groups(operator)
        assert operator.get("/apis/kubeflow.org/v1").status_code == 404
        assert "apis/kubeflow.org/v1" not in operator.get("/openapi/v3").json()["paths"]
        with pytest.raises(ManifestError, match="unsupported kind 'PyTorchJob'"):
            load_manifest(pytorch())
    assert "kubeflow.org" in _groups(operator)
    assert load_manifest(pytorch()).kind.kind == "PyTorchJob"


def test_each_app_serves_its_own_kinds() -> None:
    by_app: dict[str, set[str]] = {}
    for entry in registry.entries():
        by_app.setdefault(entry.model._meta.app_label, set()).add(entry.resource.plural)
    assert by_app == {
        "core": {
            "namespaces",
            "pods",
            "nodes",
            "events",
            "secrets",
            "priorityclasses",
            "services",
            "endpoints",
            "endpointslices",
            "configmaps",
            "networkpolicies",
            "poddisruptionbudgets",
            "resourcequotas",
        },
        "jobs": {"jobs", "commands"},
        "queues": {"podgroups", "queues"},
        "training": {"pytorchjobs", "tfjobs", "mpijobs"},
        "flow": {"jobtemplates", "jobflows", "cronjobs"},
        "topology": {"hypernodes"},
        "kubelet": {"numatopologies"},
    }


def test_manifests_are_applied_in_dependency_order() -> None:
    assert [kind.kind for kind in registry.manifest_kinds()] == [
        "PriorityClass", "ResourceQuota", "Queue", "Node", "Numatopology", "HyperNode",
        "ConfigMap", "JobTemplate", "JobFlow", "CronJob", "Job", "PyTorchJob", "TFJob", "MPIJob",
        "PodGroup", "Service", "NetworkPolicy", "PodDisruptionBudget", "Pod", "Command", "Event",
    ]  # fmt: skip
