"""A configurable test plugin: lets a test answer any hook with a plain function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from scheduler.engine.framework import Plugin, Session


class ProbePlugin(Plugin):
    """Registers ``answers[hook] = fn`` as ``ssn.add_<hook>_fn("probe", fn)``."""

    name = "probe"
    answers: ClassVar[dict[str, Callable[..., Any]]] = {}
    opened: ClassVar[list[Session]] = []

    def on_session_open(self, ssn: Session) -> None:
        ProbePlugin.opened.append(ssn)
        for hook, fn in self.answers.items():
            if hook == "event_handler":
                ssn.add_event_handler(fn())
            else:
                getattr(ssn, f"add_{hook}_fn")(self.name, fn)
