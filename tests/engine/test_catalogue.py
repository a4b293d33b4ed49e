"""The policy editor's catalogue: every registered plugin and action is described."""

from __future__ import annotations

from scheduler.engine.catalogue import ACTIONS, PLUGINS, action_help, flag_default, plugin_info
from scheduler.engine.conf import ENABLE_FLAGS
from scheduler.engine.framework.registry import action_names, ensure_loaded, plugin_names


def test_every_registered_plugin_and_action_has_words() -> None:
    ensure_loaded()

    assert sorted(PLUGINS) == sorted(plugin_names())
    assert sorted(ACTIONS) == sorted(action_names())
    for name in PLUGINS:
        info = plugin_info(name)
        assert info is not None, name
        assert info.help, name
        assert set(info.flags) <= set(ENABLE_FLAGS), name
    for name in ACTIONS:
        assert action_help(name)[0], name


def test_arguments_carry_volcanos_defaults_and_an_explanation() -> None:
    info = plugin_info("nodeorder")

    assert info is not None
    weights = {a.key: (a.type, a.default) for a in info.arguments}
    assert weights["tainttoleration.weight"] == ("int", 3)
    assert all(a.help for a in info.arguments)


def test_unknown_plugin_has_no_entry_and_hierarchy_defaults_off() -> None:
    assert plugin_info("nosuch") is None
    assert flag_default("enableHierarchy") is False
    assert flag_default("enableJobOrder") is True
