"""The registry of plugin classes and action instances, by conf name.

Volcano's counterpart: ``pkg/scheduler/framework/plugins.go`` (``RegisterPluginBuilder``,
``RegisterAction``) with ``plugins/factory.go``. Registration happens when a module is imported;
``plugins/__init__.py`` and ``actions/__init__.py`` import every module in an explicit sorted list,
and ``ensure_loaded()`` imports those two packages so the registry is complete before a conf is
checked.
"""

from __future__ import annotations

import importlib
from typing import TypeVar

from scheduler.engine.framework.interface import Action, Plugin

__all__ = [
    "action_names",
    "ensure_loaded",
    "get_action",
    "get_plugin_class",
    "plugin_names",
    "register_action",
    "register_plugin",
]

_PLUGINS: dict[str, type[Plugin]] = {}
_ACTIONS: dict[str, Action] = {}

P = TypeVar("P", bound=type[Plugin])
A = TypeVar("A", bound=type[Action])


def register_plugin(cls: P) -> P:
    """Store plugin class ``cls`` under ``cls.name``; a name registered twice raises."""
    if not cls.name:
        raise ValueError(f"{cls.__qualname__} has no name")
    if cls.name in _PLUGINS:
        raise ValueError(f"plugin {cls.name!r} is already registered")
    _PLUGINS[cls.name] = cls
    return cls


def register_action(cls: A) -> A:
    """Store one instance of action class ``cls`` under ``cls.name``; twice raises."""
    if not cls.name:
        raise ValueError(f"{cls.__qualname__} has no name")
    if cls.name in _ACTIONS:
        raise ValueError(f"action {cls.name!r} is already registered")
    _ACTIONS[cls.name] = cls()
    return cls


def ensure_loaded() -> None:
    """Import the plugin and action packages so every built-in registers itself."""
    importlib.import_module("scheduler.engine.plugins")
    importlib.import_module("scheduler.engine.actions")


def get_plugin_class(name: str) -> type[Plugin] | None:
    """Return the plugin class registered as ``name``, if any."""
    return _PLUGINS.get(name)


def get_action(name: str) -> Action | None:
    """Return the action registered as ``name``, if any."""
    return _ACTIONS.get(name)


def plugin_names() -> list[str]:
    """Return the registered plugin names, sorted."""
    return sorted(_PLUGINS)


def action_names() -> list[str]:
    """Return the registered action names, sorted."""
    return sorted(_ACTIONS)
