"""Errors the engine raises, each naming the field path of the bad input.

Every error a user can cause (a bad conf, a bad manifest, a bad quantity) carries
``field`` so that the web layer, the CLI and ``simulate`` can point at the exact
place: ``tiers[1].plugins[2].arguments.binpack.weight: expected a number, got "ten"``.
"""

from __future__ import annotations

__all__ = ["ConfError", "EngineError", "ManifestError", "QuantityError"]


class EngineError(ValueError):
    """Base of every user-facing engine error; ``str()`` is ``"<field>: <message>"``."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)


class ConfError(EngineError):
    """A volcano-scheduler.conf that cannot be used as written."""


class ManifestError(EngineError):
    """A Kubernetes/Volcano manifest with an unknown field or a wrong type."""


class QuantityError(EngineError):
    """A resource quantity that is not a valid, non-negative Kubernetes quantity."""

    def __init__(self, field: str, value: object, reason: str = "") -> None:
        self.value = value
        detail = f": {reason}" if reason else ""
        super().__init__(field, f"invalid quantity {value!r}{detail}")
