"""The pure scheduling engine: snapshot in, decisions out. Imports no Django and no app.

Volcano's counterpart: ``pkg/scheduler``. Entry points:
``load_conf(text)`` → ``SchedulerConf``; ``open_session`` / ``run_session(cluster, conf)`` →
``Decisions``; ``load_scenario(text)`` → a scenario (snapshot, conf, expectations).
"""

from __future__ import annotations

from scheduler.engine import actions, plugins
from scheduler.engine.conf import load_conf
from scheduler.engine.framework.session import close_session, open_session, run_session
from scheduler.engine.util.scenario import load_scenario

__all__ = [
    "actions",
    "close_session",
    "load_conf",
    "load_scenario",
    "open_session",
    "plugins",
    "run_session",
]
