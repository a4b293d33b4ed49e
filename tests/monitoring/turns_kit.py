"""What the live Prometheus tests share: the scrape and the scenario's writes take turns."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from apis.prometheus_text import Family

__all__ = ["TURNS", "forget_in_turn", "in_turn"]

# The test database is SQLite in memory, shared with the live server's thread, where a read
# meeting a write fails at once ("table is locked") instead of waiting: scrapes and the
# scenario's steps take turns.
TURNS = threading.Lock()


def in_turn(read: Callable[[], Iterator[Family]]) -> Callable[[], Iterator[Family]]:
    def families() -> Iterator[Family]:
        with TURNS:
            return iter(list(read()))

    return families


def forget_in_turn(forget: Callable[..., None]) -> Callable[..., None]:
    """The scrape's look-up of deleted jobs' PodGroups, taking its turn like the families."""

    def in_turn(*args: Any, **kwargs: Any) -> None:
        with TURNS:
            forget(*args, **kwargs)

    return in_turn
