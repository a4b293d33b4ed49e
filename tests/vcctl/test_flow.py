"""``vcctl jobtemplate ...`` and ``vcctl jobflow ...``: Volcano's example templates and flow
created, listed, got, described and deleted over the API, in Volcano's words and columns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from flow.apps import EXAMPLES_DIR
from flow.models import JobFlow, JobTemplate
from tests.vcctl.runner_kit import Runner

pytestmark = pytest.mark.django_db(transaction=True)


def _split(tmp_path: Path) -> tuple[Path, Path]:
    """Write Volcano's JobTemplate.yaml and JobFlow.yaml back out of the combined example."""
    documents = list(yaml.safe_load_all((EXAMPLES_DIR / "jobflow-diamond.yaml").read_text()))
    templates, flows = tmp_path / "JobTemplate.yaml", tmp_path / "JobFlow.yaml"
    templates.write_text(yaml.safe_dump_all([d for d in documents if d["kind"] == "JobTemplate"]))
    flows.write_text(yaml.safe_dump_all([d for d in documents if d["kind"] == "JobFlow"]))
    return templates, flows


def test_templates_are_created_listed_got_described_and_deleted(
    vcctl: Runner, tmp_path: Path
) -> None:
    templates, _flows = _split(tmp_path)
    created = vcctl("jobtemplate", "create", "-f", str(templates))
    assert created.code == 0, created.err
    assert created.out.splitlines() == [f"Created JobTemplate: default/{n}" for n in "abcde"]
    again = vcctl("jobtemplate", "create", "-f", str(templates))
    assert again.out.splitlines()[0].startswith("Failed to create JobTemplate: ")
    assert "already exists" in again.out.splitlines()[0]

    listed = vcctl("jobtemplate", "list").out.splitlines()
    assert listed[0].split() == ["Name", "Namespace"]
    assert [line.split() for line in listed[1:]] == [[n, "default"] for n in "abcde"]
    assert listed[0].index("Namespace") == len("Name") + 4  # columns four spaces apart
    assert vcctl("jobtemplate", "list", "-n", "team").out == "No resources found\n"

    got = vcctl("jobtemplate", "get", "-N", "a").out.splitlines()
    assert got[1].split() == ["a", "default"]
    missing = vcctl("jobtemplate", "get")
    assert missing.code == 1
    assert "name is mandatory to get the particular job template details" in missing.err

    described = yaml.safe_load(vcctl("jobtemplate", "describe", "-N", "a").out)
    assert (described["kind"], described["spec"]["tasks"][0]["name"]) == (
        "JobTemplate",
        "default-nginx",
    )
    as_json = json.loads(vcctl("jobtemplate", "describe", "-N", "a", "-o", "json").out)
    assert as_json["metadata"]["name"] == "a"

    assert vcctl("jobtemplate", "delete", "-N", "a").out == "Deleted JobTemplate: default/a\n"
    deleted = vcctl("jobtemplate", "delete", "-f", str(templates)).out.splitlines()
    assert deleted[0].startswith("Failed to delete JobTemplate: ")
    assert deleted[1:] == [f"Deleted JobTemplate: default/{n}" for n in "bcde"]
    assert not JobTemplate.objects.exists()


def test_a_flow_is_created_listed_with_its_phase_and_deleted(vcctl: Runner, tmp_path: Path) -> None:
    templates, flows = _split(tmp_path)
    vcctl("jobtemplate", "create", "-f", str(templates))
    assert vcctl("jobflow", "create", "-f", str(flows)).out == "Created JobFlow: default/test\n"
    JobFlow.objects.filter(name="test").update(phase="Running")

    listed = vcctl("jobflow", "list").out.splitlines()
    assert listed[0].split() == ["Name", "Namespace", "Phase", "Age"]
    assert listed[1].split()[:3] == ["test", "default", "Running"]
    everywhere = vcctl("jobflow", "list", "--all-namespaces").out.splitlines()
    assert everywhere[1].split()[:3] == ["test", "default", "Running"]
    assert vcctl("jobflow", "get", "-N", "test").out.splitlines()[1].split()[:3] == [
        "test", "default", "Running"]  # fmt: skip
    described = yaml.safe_load(vcctl("jobflow", "describe", "-N", "test").out)
    assert described["spec"]["jobRetainPolicy"] == "delete"
    assert described["status"]["state"]["phase"] == "Running"

    refused = vcctl("jobflow", "get", "-N", "nothing")
    assert refused.code == 1
    assert "NotFound" in refused.err
    assert vcctl("jobflow", "delete", "-N", "test").out == "Deleted JobFlow: default/test\n"
    assert vcctl("jobflow", "list").out == "No resources found\n"


def test_a_flow_that_is_not_a_dag_is_reported_in_volcanos_words(
    vcctl: Runner, tmp_path: Path
) -> None:
    loop = tmp_path / "loop.yaml"
    loop.write_text(yaml.safe_dump({
        "apiVersion": "flow.volcano.sh/v1alpha1", "kind": "JobFlow", "metadata": {"name": "loop"},
        "spec": {"flows": [{"name": "a", "dependsOn": {"targets": ["b"]}},
                           {"name": "b", "dependsOn": {"targets": ["a"]}}]},
    }))  # fmt: skip
    out = vcctl("jobflow", "create", "-f", str(loop)).out
    assert out.startswith("Failed to create JobFlow: ")
    assert "jobflow Flow is not DAG" in out
