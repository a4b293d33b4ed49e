"""The scheduling framework: plugins, actions, the session and its statement.

Volcano's counterpart: ``pkg/scheduler/framework``. Plugin and action modules import what they
need from here: ``from scheduler.engine.framework import Arguments, Plugin, Session,
register_plugin``.
"""

from __future__ import annotations

from scheduler.engine.framework.arguments import ArgSpec, Arguments
from scheduler.engine.framework.decisions import Decisions, Eviction, SessionTimings
from scheduler.engine.framework.interface import Action, Event, EventHandler, Plugin
from scheduler.engine.framework.registrars import SearchPurpose
from scheduler.engine.framework.registry import register_action, register_plugin
from scheduler.engine.framework.session import Session, close_session, open_session, run_session
from scheduler.engine.framework.statement import Statement

__all__ = [
    "Action",
    "ArgSpec",
    "Arguments",
    "Decisions",
    "Event",
    "EventHandler",
    "Eviction",
    "Plugin",
    "SearchPurpose",
    "Session",
    "SessionTimings",
    "Statement",
    "close_session",
    "open_session",
    "register_action",
    "register_plugin",
    "run_session",
]
