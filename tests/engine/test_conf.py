"""Parsing volcano-scheduler.conf: defaults, flags, arguments and every error naming its path."""

from __future__ import annotations

from pathlib import Path

import pytest

from apis.errors import ConfError
from scheduler.engine.conf import DEFAULT_CONF, conf_problems, load_conf
from scheduler.engine.framework import ArgSpec, Plugin, Session, registry

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "scheduler-conf"


class WeightedPlugin(Plugin):
    """A test plugin with typed arguments, registered only inside these tests."""

    name = "weighted"
    arguments_schema = (
        ArgSpec("weighted.weight", float, 1.0),
        ArgSpec("weighted.enabled", bool, True),
        ArgSpec("weighted.count", int, 3),
        ArgSpec("weighted.resources.", float, 1.0, prefix=True),
    )

    def on_session_open(self, ssn: Session) -> None:
        return None


@pytest.fixture
def weighted(monkeypatch):
    registry.ensure_loaded()
    monkeypatch.setitem(registry._PLUGINS, "weighted", WeightedPlugin)


def tiers(*entries: str) -> str:
    return 'actions: "allocate"\ntiers:\n- plugins:\n  - name: priority\n' + "".join(entries)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.conf")), ids=lambda p: p.name)
def test_every_shared_example_conf_parses(path):
    text = path.read_text()
    conf = load_conf(text)
    assert conf.actions
    assert conf.tiers


def test_empty_conf_is_volcanos_default_actions():
    conf_text_default = load_conf.__globals__["DEFAULT_CONF"]
    assert "enqueue, allocate, backfill" in conf_text_default


def test_unset_flags_are_enabled_except_hierarchy_and_cluster_order():
    conf = load_conf(tiers("  - name: gang\n    enablePreemptable: false\n"))
    gang = conf.tiers[0].plugins[1]
    assert gang.enabled("enableJobReady") is True
    assert gang.enabled("enablePreemptable") is False
    assert gang.enabled("enableHierarchy") is False
    assert gang.enabled("enabledClusterOrder") is False


def test_actions_keep_their_order():
    conf = load_conf('actions: "enqueue, backfill, allocate"\ntiers: []\n')
    assert conf.actions == ("enqueue", "backfill", "allocate")


def test_arguments_are_typed_and_defaulted(weighted):
    conf = load_conf(
        tiers(
            "  - name: weighted\n    arguments:\n      weighted.weight: 10\n      weighted.resources.nvidia.com/gpu: 2\n"
        )
    )
    args = conf.tiers[0].plugins[1].arguments
    assert args.get_float("weighted.weight") == 10.0
    assert args.get_int("weighted.count") == 3
    assert args.with_prefix("weighted.resources.") == {"nvidia.com/gpu": 2.0}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('actions: "allocate, dance"\ntiers: []\n', "actions: unknown action 'dance'"),
        (tiers("  - name: foo\n"), "tiers[0].plugins[1].name: unknown plugin 'foo'"),
        (
            tiers("  - name: gang\n    enableDancing: true\n"),
            "tiers[0].plugins[1].enableDancing: unknown field",
        ),
        (
            tiers("  - name: gang\n    enableJobReady: maybe\n"),
            'tiers[0].plugins[1].enableJobReady: expected true or false, got "maybe"',
        ),
        (tiers("  - name: priority\n"), "tiers[0].plugins[1].name: duplicate plugin 'priority'"),
        (
            tiers("  - name: gang\n    arguments: {gang.x: 1}\n"),
            "tiers[0].plugins[1].arguments.gang.x: unknown argument",
        ),
        (
            'actions: "allocate"\ntiers: []\nconfigurations:\n- name: allocate\n  arguments: {predicateErrorCacheEnable: 3}\n',
            "configurations[0].arguments.predicateErrorCacheEnable: expected true or false, got 3",
        ),
        ('actions: "allocate"\ntiers: []\nextra: 1\n', "extra: unknown field"),
        ("actions: [", "not valid YAML"),
    ],
)
def test_bad_confs_are_refused_naming_the_path(text, message):
    with pytest.raises(ConfError) as info:
        load_conf(text)
    assert message in str(info.value)


def test_wrong_argument_type_names_the_argument(weighted):
    text = 'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n- plugins:\n  - name: priority\n  - name: conformance\n  - name: weighted\n    arguments:\n      weighted.weight: ten\n'
    with pytest.raises(ConfError) as info:
        load_conf(text)
    assert (
        str(info.value)
        == 'tiers[1].plugins[2].arguments.weighted.weight: expected a number, got "ten"'
    )


def test_registering_a_plugin_name_twice_raises():
    registry.ensure_loaded()
    with pytest.raises(ValueError, match="already registered"):
        registry.register_plugin(type("Again", (Plugin,), {"name": "priority"}))


def test_conf_problems_names_every_refused_part_in_text_order() -> None:
    text = """\
actions: "enqueue, nope"
tiers:
- plugins:
  - name: gang
  - name: gangg
- plugins:
  - name: drf
    enableHierarchy: maybe
configurations:
- name: nothing
"""
    problems = conf_problems(text)

    assert [(p.field, p.message) for p in problems] == [
        ("actions", "unknown action 'nope'"),
        ("tiers[0].plugins[1].name", "unknown plugin 'gangg'"),
        ("tiers[1].plugins[0].enableHierarchy", 'expected true or false, got "maybe"'),
        ("configurations[0].name", "unknown action 'nothing'"),
    ]
    with pytest.raises(ConfError) as first:
        load_conf(text)
    assert first.value.field == "actions"
    assert conf_problems(DEFAULT_CONF) == []
