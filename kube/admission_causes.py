"""Admission errors: every violated rule as a Kubernetes StatusCause (field, reason, message).

Volcano's webhooks stop at the first problem or join messages into one string;
here every rule set returns ALL its violations so the console, ``apply`` and the
REST API (a 422 ``Status`` with ``details.causes[]``) can name every bad field at
once. ``AdmissionError`` is a ``ManifestError`` (field = the first cause), so code
that already reports manifest errors reports admission refusals without change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from apis.errors import ManifestError

__all__ = ["AdmissionError", "Cause", "CauseType", "Causes"]


class CauseType(StrEnum):
    """Kubernetes ``metav1.CauseType`` values used by field validation."""

    NOT_FOUND = "FieldValueNotFound"
    REQUIRED = "FieldValueRequired"
    DUPLICATE = "FieldValueDuplicate"
    INVALID = "FieldValueInvalid"
    NOT_SUPPORTED = "FieldValueNotSupported"
    FORBIDDEN = "FieldValueForbidden"
    TOO_LONG = "FieldValueTooLong"


@dataclass(frozen=True, slots=True)
class Cause:
    """One violated rule: the wire path of the field, the cause type and a message."""

    field: str
    reason: CauseType
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message

    def as_status_cause(self) -> dict[str, str]:
        """Return this cause as a ``details.causes[]`` entry of a Kubernetes ``Status``."""
        return {"reason": str(self.reason), "message": str(self), "field": self.field}


class AdmissionError(ManifestError):
    """An object refused by admission; ``causes`` lists every violation, in rule order."""

    def __init__(self, causes: Iterable[Cause], *, kind: str = "", name: str = "") -> None:
        self.causes = list(causes)
        if not self.causes:
            raise ValueError("AdmissionError needs at least one cause")
        self.kind = kind
        self.name = name
        first, rest = self.causes[0], self.causes[1:]
        message = "; ".join([first.message, *(str(cause) for cause in rest)])
        super().__init__(first.field, message)


class Causes(list[Cause]):
    """A growing list of causes with one short adder per cause type."""

    def add(self, field: str, reason: CauseType, message: str) -> None:
        """Record that ``field`` violates a rule."""
        self.append(Cause(field, reason, message))

    def invalid(self, field: str, message: str) -> None:
        """Record an invalid value."""
        self.add(field, CauseType.INVALID, message)

    def required(self, field: str, message: str = "Required value") -> None:
        """Record a missing required value."""
        self.add(field, CauseType.REQUIRED, message)

    def duplicate(self, field: str, message: str) -> None:
        """Record a value that must be unique but is not."""
        self.add(field, CauseType.DUPLICATE, message)

    def not_supported(self, field: str, value: object, allowed: Iterable[str]) -> None:
        """Record a value outside an enumeration."""
        choices = ", ".join(f'"{item}"' for item in allowed)
        self.add(
            field, CauseType.NOT_SUPPORTED, f"Unsupported value: {value!r}: supported: {choices}"
        )

    def forbidden(self, field: str, message: str) -> None:
        """Record a change or value that is not allowed at all."""
        self.add(field, CauseType.FORBIDDEN, message)

    def not_found(self, field: str, message: str) -> None:
        """Record a reference to an object that does not exist."""
        self.add(field, CauseType.NOT_FOUND, message)

    def raise_if_any(self, *, kind: str = "", name: str = "") -> None:
        """Raise ``AdmissionError`` with every recorded cause, if there is any."""
        if self:
            raise AdmissionError(self, kind=kind, name=name)
