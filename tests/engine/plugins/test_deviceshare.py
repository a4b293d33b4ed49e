"""deviceshare plugin: arguments, what it registers, and booking through session events."""

from __future__ import annotations

from pathlib import Path

import pytest

from apis.errors import ConfError
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.catalogue import plugin_info
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import open_session
from scheduler.engine.plugins.deviceshare_exclusive import check_rules, matching_rules, read_rules
from scheduler.engine.util.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "deviceshare"


def _conf(arguments: str) -> str:
    return (
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: deviceshare\n'
        f"    arguments: {{{arguments}}}\n"
    )


@pytest.mark.parametrize(
    ("arguments", "field", "message"),
    [
        (
            "deviceshare.GPUSharingEnable: true, deviceshare.GPUNumberEnable: true",
            "deviceshare.GPUNumberEnable",
            "can not define true in both gpu sharing and gpu number",
        ),
        (
            "deviceshare.GPUNumberEnable: true, deviceshare.VGPUEnable: true",
            "deviceshare.VGPUEnable",
            "gpu-share and vgpu can't be used together",
        ),
    ],
)
def test_conf_refuses_what_volcano_exits_on(arguments: str, field: str, message: str) -> None:
    with pytest.raises(ConfError) as caught:
        load_conf(_conf(arguments))

    assert caught.value.field == f"tiers[0].plugins[0].arguments.{field}"
    assert message in str(caught.value)


def test_arguments_are_typed_and_offered_by_the_editor() -> None:
    conf = load_conf(_conf("deviceshare.SchedulePolicy: binpack, deviceshare.ScheduleWeight: 10"))
    arguments = conf.plugin_options()[0].arguments

    assert arguments.get_str("deviceshare.SchedulePolicy") == "binpack"
    assert arguments.get_int("deviceshare.ScheduleWeight") == 10
    with pytest.raises(ConfError):
        load_conf(_conf("deviceshare.ScheduleWeight: heavy"))
    info = plugin_info("deviceshare")
    assert info is not None
    assert info.flags == ("enablePredicate", "enableNodeOrder")
    assert "deviceshare.VGPUEnable" in {a.key for a in info.arguments}


def _session(scenario: str, conf: str | None = None):  # type: ignore[no-untyped-def]
    loaded = load_scenario((SCENARIOS / f"{scenario}.yaml").read_text())
    return open_session(loaded.cluster, load_conf(conf) if conf else loaded.conf)


def test_nothing_registered_when_no_device_kind_is_enabled() -> None:
    ssn = _session("vgpu-binpack-prefers-the-used-card", _conf(""))

    assert not ssn.event_handlers
    assert all("deviceshare" not in fns for fns in ssn._hooks.values())


def test_eviction_frees_the_card_and_undoing_it_books_it_again() -> None:
    ssn = _session("vgpu-card-slots-bound-its-users")
    running = ssn.jobs["c1/running"].tasks["c1/running"]
    pending = ssn.jobs["c1/p1"].tasks["c1/p1"]
    node = ssn.nodes["n1"]

    assert ssn.predicate_fn(pending, node) is not None
    ssn.evict_task(running)
    assert ssn.predicate_fn(pending, node) is None
    ssn.unevict_task(running, TaskStatus.RUNNING)
    status = ssn.predicate_fn(pending, node)
    assert status is not None
    assert status.reason == "hami-vgpuDeviceSharing error"


def test_exclusive_rules_keep_string_labels_and_skip_empty_maps() -> None:
    """Volcano's TestParseExclusiveRulesHandlesEdgeCases and TestLoadGPUExclusiveConfig."""
    conf = load_conf(
        _conf(
            "deviceshare.VGPUEnable: true, deviceshare.GPUExclusiveRules: "
            "[{app: training, replicas: 3}, {}, {workload: inference}]"
        )
    )
    text = conf.plugin_options()[0].arguments.get_str("deviceshare.GPUExclusiveRules")

    assert read_rules(text) == [{"app": "training"}, {"workload": "inference"}]
    assert read_rules(check_rules([], "f")) == []
    with pytest.raises(ConfError) as caught:
        load_conf(_conf("deviceshare.GPUExclusiveRules: not-a-list"))
    assert caught.value.field == "tiers[0].plugins[0].arguments.deviceshare.GPUExclusiveRules"


def test_a_pod_matches_a_rule_only_with_every_label() -> None:
    """Volcano's TestPodMatchesRule and TestMatchingRules."""
    rules = [{"app": "training", "team": "ml"}, {"workload": "inference"}]

    assert matching_rules({"app": "training", "team": "ml", "x": "y"}, rules) == (0,)
    assert matching_rules({"app": "training"}, rules) == ()
    assert matching_rules({"app": "training", "team": "ops"}, rules) == ()
    assert matching_rules({"app": "training", "team": "ml", "workload": "inference"}, rules) == (
        0,
        1,
    )
    assert matching_rules({}, rules) == ()
