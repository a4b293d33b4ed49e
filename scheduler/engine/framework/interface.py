"""The two extension points: ``Plugin`` (answers questions) and ``Action`` (makes decisions).

Volcano's counterpart: ``pkg/scheduler/framework/interface.go`` and ``event.go``.

How a plugin registers
----------------------
A plugin module defines one subclass of ``Plugin`` with a ``name`` equal to its conf name and
decorates it with ``@register_plugin`` (``framework/registry.py``); ``plugins/__init__.py`` imports
the module in its explicit sorted list. For every session the conf enables it in, the session
builds a fresh instance with its validated ``Arguments`` and calls ``on_session_open(ssn)``, where
the plugin registers the functions it answers with (``ssn.add_job_order_fn(self.name, fn)``,
``ssn.add_predicate_fn(...)``, ``ssn.add_batch_node_order_fn(...)``, ``ssn.add_event_handler(...)``
...; the full list and the signatures are in ``framework/registrars.py``). The conf's enable
flags decide, per hook, whether the session consults the function; the plugin does not check them.

How a plugin declares its arguments
-----------------------------------
``arguments_schema`` on the class is a tuple of ``ArgSpec(name, type, default, prefix=False)``
(``framework/arguments.py``). ``conf.py`` validates a conf's ``arguments`` against it when the conf
is parsed (unknown key, wrong type → ``ConfError`` naming ``tiers[i].plugins[j].arguments.<key>``),
so a plugin written later is validated the day it is registered. Actions declare theirs the same
way; their values come from the conf's ``configurations`` list and are read with
``ssn.action_arguments(self.name)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from scheduler.engine.framework.arguments import ArgSpec, Arguments

if TYPE_CHECKING:
    from scheduler.engine.api.task_info import TaskInfo
    from scheduler.engine.framework.session import Session

__all__ = ["Action", "Event", "EventHandler", "Plugin"]


class Plugin:
    """Base of every plugin; a fresh instance is built per session."""

    name: ClassVar[str] = ""
    arguments_schema: ClassVar[tuple[ArgSpec, ...]] = ()
    # True when the plugin's preemptable/reclaimable answer depends only on the candidates it
    # is given (never on the session's allocations): reclaim may then remember a node whose
    # candidates it refused all of (``Session.reclaim_refused_for_good``).
    static_victims: ClassVar[bool] = False

    def __init__(self, arguments: Arguments) -> None:
        self.arguments = arguments

    @classmethod
    def check_arguments(cls, arguments: Arguments) -> tuple[str, str] | None:
        """Return (argument, message) for a combination of arguments Volcano refuses to start
        with (each valid alone), or None; the conf parser turns it into a ``ConfError``."""
        return None

    def on_session_open(self, ssn: Session) -> None:
        """Register this plugin's functions on ``ssn``."""
        raise NotImplementedError

    def on_session_close(self, ssn: Session) -> None:
        """Write back what the plugin owns (conditions, metrics); nothing by default."""


class Action:
    """Base of every action; one stateless instance is registered and reused by all sessions."""

    name: ClassVar[str] = ""
    arguments_schema: ClassVar[tuple[ArgSpec, ...]] = ()

    def execute(self, ssn: Session) -> None:
        """Run the action's steps on the session."""
        raise NotImplementedError


@dataclass(slots=True, frozen=True)
class Event:
    """A task was allocated/pipelined or deallocated/evicted (Volcano's ``framework.Event``)."""

    task: TaskInfo


@dataclass(slots=True, frozen=True)
class EventHandler:
    """Callbacks a plugin registers to keep its own accounting (shares, inqueue) in step."""

    allocate_func: Callable[[Event], None] | None = None
    deallocate_func: Callable[[Event], None] | None = None
