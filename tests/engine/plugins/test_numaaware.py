"""numa-aware in a session: what it refuses and why, the CPUs it records, its cost when idle."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from apis.errors import ManifestError
from scheduler.engine.api.types import FitCode
from scheduler.engine.catalogue import plugin_info
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import open_session, run_session
from scheduler.engine.util.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "numa-aware"


def _load(name: str):  # type: ignore[no-untyped-def]
    return load_scenario((SCENARIOS / f"{name}.yaml").read_text())


def test_bound_pods_carry_their_cpus_in_the_decisions() -> None:
    loaded = _load("cpus-taken-in-session-are-not-given-twice")
    decisions = run_session(loaded.cluster, loaded.conf)

    assert decisions.numa_assignments == {
        "c1/p1": ("a1", {"cpu": "0-3"}),
        "c1/p2": ("a1", {"cpu": "4-7"}),
        "c1/p3": ("b1", {"cpu": "0-3"}),
    }


def test_refusals_name_volcano_reasons() -> None:
    loaded = _load("policy-pod-needs-a-matching-static-node")
    ssn = open_session(loaded.cluster, loaded.conf)
    task = ssn.jobs["c1/p1"].tasks["c1/p1"]

    reasons = {}
    for name in ("a1", "b1", "c1", "d1"):
        status = ssn.predicate_fn(task, ssn.nodes[name])
        reasons[name] = None if status is None else (status.reason, status.code)
    assert reasons == {
        "a1": ("numa info is empty", FitCode.ERROR),
        "b1": ("cpu manager policy isn't static", FitCode.ERROR),
        "c1": (
            "task topology policy[single-numa-node] is different with node[best-effort]",
            FitCode.ERROR,
        ),
        "d1": None,
    }


def test_a_container_that_cannot_be_aligned_is_named() -> None:
    loaded = _load("restricted-refuses-cross-numa-placement")
    ssn = open_session(loaded.cluster, loaded.conf)
    task = ssn.jobs["c1/p1"].tasks["c1/p1"]

    status = ssn.predicate_fn(task, ssn.nodes["a1"])
    assert status is not None
    assert status.reason == "container main cannot be assigned by numa"
    assert status.code == FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_nothing_registered_without_guaranteed_pods() -> None:
    loaded = _load("burstable-pods-are-not-checked")
    ssn = open_session(loaded.cluster, loaded.conf)

    assert all("numa-aware" not in fns for fns in ssn._hooks.values())


def test_weight_multiplies_the_score() -> None:
    loaded = _load("best-effort-scores-fewer-numa-nodes-higher")
    conf = load_conf(
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: numa-aware\n    arguments: {weight: 3}\n'
    )
    ssn = open_session(loaded.cluster, conf)
    task = ssn.jobs["c1/p1"].tasks["c1/p1"]

    fn = ssn._hooks["batch_node_order"]["numa-aware"]
    rows = np.array([ssn.nodes["a1"].index, ssn.nodes["b1"].index], dtype=np.int64)
    assert fn(task, rows).tolist() == [0.0, 150.0]


def test_catalogue_offers_numa_aware() -> None:
    info = plugin_info("numa-aware")
    assert info is not None
    assert info.flags == ("enablePredicate", "enableNodeOrder")
    assert {a.key for a in info.arguments} == {"weight"}


def test_bad_cpuset_names_the_field() -> None:
    text = (SCENARIOS / "restricted-refuses-cross-numa-placement.yaml").read_text()
    with pytest.raises(ManifestError) as err:
        load_scenario(text.replace("allocatable: '2-5'", "allocatable: '5-2'"))
    assert "spec.numares.cpu.allocatable" in str(err.value)
