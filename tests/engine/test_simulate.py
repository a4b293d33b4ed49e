"""The simulate runner: output keys, --check, and exit codes (scenario-format.md)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from apis.errors import EngineError, ManifestError
from scheduler.engine.simulate import execute
from scheduler.engine.util.scenario import load_scenario

SCENARIO = """\
name: one-pod
config: |
  actions: "enqueue, allocate"
  tiers:
  - plugins:
    - name: gang
objects:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p-0, namespace: ns}
  spec:
    containers: [{name: c, resources: {requests: {cpu: 500m}}}]
expect:
  binds: {ns/p-0: n1}
"""


def run(tmp_path: Path, *texts: str, fmt: str = "json", check: bool = True) -> tuple[int, str, str]:
    paths = []
    for i, text in enumerate(texts):
        path = tmp_path / f"s{i}.yaml"
        path.write_text(text)
        paths.append(str(path))
    out, err = io.StringIO(), io.StringIO()
    code = execute(paths, fmt=fmt, check=check, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_json_output_has_the_documented_keys(tmp_path):
    code, out, _ = run(tmp_path, SCENARIO)
    assert code == 0
    data = json.loads(out)
    assert set(data) == {
        "name",
        "binds",
        "evictions",
        "pipelined",
        "podGroupPhases",
        "unschedulable",
    }
    assert data["binds"] == {"ns/p-0": "n1"}
    assert data["podGroupPhases"] == {"ns/p-0": "Inqueue"}


def test_several_files_print_a_list_in_order(tmp_path):
    second = SCENARIO.replace("name: one-pod", "name: again")
    code, out, _ = run(tmp_path, SCENARIO, second)
    assert code == 0
    assert [d["name"] for d in json.loads(out)] == ["one-pod", "again"]


def test_check_mismatch_exits_1_and_names_the_difference(tmp_path):
    code, _, err = run(tmp_path, SCENARIO.replace("{ns/p-0: n1}", "{ns/p-0: n2}"))
    assert code == 1
    assert "binds[ns/p-0]: expected 'n2', got 'n1'" in err


def test_without_check_a_mismatch_is_not_an_error(tmp_path):
    code, _, _ = run(tmp_path, SCENARIO.replace("{ns/p-0: n1}", "{ns/p-0: n2}"), check=False)
    assert code == 0


def test_bad_input_exits_2_names_the_field_and_prints_no_decisions(tmp_path):
    bad = SCENARIO.replace("cpu: 500m", "cpu: lots")
    code, out, err = run(tmp_path, SCENARIO, bad)
    assert code == 2
    assert out == ""
    assert "objects[1] (Pod ns/p-0).spec.containers[0].resources.requests.cpu" in err


def test_text_format_lists_binds(tmp_path):
    code, out, _ = run(tmp_path, SCENARIO, fmt="text")
    assert code == 0
    assert "bind      ns/p-0 -> n1" in out


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (("kind: Pod", "kind: Deployment"), "objects[1] (Deployment ns/p-0).kind"),
        (("containers:", "colour: blue\n    containers:"), "objects[1] (Pod ns/p-0).spec.colour"),
        (("name: gang", "name: nope"), "tiers[0].plugins[0].name"),
        (("binds:", "bound:"), "expect.bound"),
        (("{name: n1}", "{name: n1, colour: red}"), "objects[0] (Node n1).metadata.colour"),
    ],
)
def test_unknown_or_malformed_input_names_object_and_field(change, field):
    with pytest.raises(EngineError) as info:
        load_scenario(SCENARIO.replace(*change))
    assert field in str(info.value)


def test_pod_naming_a_missing_pod_group_is_refused():
    text = SCENARIO.replace(
        "namespace: ns}", "namespace: ns, annotations: {scheduling.k8s.io/group-name: pg}}"
    )
    with pytest.raises(ManifestError, match="no PodGroup 'pg'"):
        load_scenario(text)
