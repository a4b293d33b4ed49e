"""Kubernetes resource quantities, parsed and formatted exactly.

Volcano's counterpart: ``k8s.io/apimachinery/pkg/api/resource`` as the scheduler
uses it (``Resource.MilliCPU`` and friends). Every resource (cpu, memory, pods,
``nvidia.com/gpu``) is held canonically as an integer number of *milli-units*, so
sums and comparisons are exact in Python and in SQL (a BIGINT column): ``500m``
is 500, ``1`` is 1000, ``1Ki`` is 1 024 000. Quantities finer than a milli-unit
are rounded up, as Kubernetes does when it asks for a milli value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import ROUND_CEILING, Decimal, InvalidOperation

from apis.errors import QuantityError

__all__ = ["format_quantity", "parse_quantity", "scheduling_quantities"]

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
}
# sign? digits with at most one dot, then a suffix: binary, decimal SI, or an exponent.
_QUANTITY = re.compile(
    r"^(?P<sign>[+-]?)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)
# Beyond this a BIGINT column cannot hold the milli value.
_MAX_MILLI = 2**63 - 1


def parse_quantity(value: object, *, field: str = "quantity") -> int:
    """Return ``value`` (``"500m"``, ``"2Gi"``, ``1.5``, ``"1e3"``) in milli-units.

    Raises ``QuantityError`` naming ``field`` for anything Kubernetes would refuse,
    and for negative quantities, which no resource request or capacity may have.
    """
    if isinstance(value, bool):
        raise QuantityError(field, value, "expected a quantity such as 500m, 2 or 4Gi")
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise QuantityError(field, value, "not a finite number")
        text = repr(value)
    elif isinstance(value, str):
        text = value
        if text != text.strip():  # as Kubernetes: ' 1' and '1 ' are not quantities
            raise QuantityError(field, value, "must not have leading or trailing spaces")
    else:
        raise QuantityError(field, value, "expected a quantity such as 500m, 2 or 4Gi")
    match = _QUANTITY.match(text)
    if match is None:
        raise QuantityError(
            field, value, "expected a number with an optional suffix (m, Ki, Mi, Gi, k, M, G, ...)"
        )
    if match["sign"] == "-" and Decimal(match["number"]) != 0:
        raise QuantityError(field, value, "must not be negative")
    try:
        number = Decimal(match["number"])
    except InvalidOperation as exc:  # pragma: no cover - the regex admits only decimals
        raise QuantityError(field, value) from exc
    suffix = match["suffix"] or ""
    if suffix in _BINARY:
        amount = number * _BINARY[suffix]
    elif suffix in _DECIMAL:
        amount = number * _DECIMAL[suffix]
    else:
        exponent = int(suffix[1:])
        if exponent > 30:
            raise QuantityError(field, value, "too large")
        amount = number.scaleb(exponent)
    milli = int((amount * 1000).to_integral_value(rounding=ROUND_CEILING))
    if milli > _MAX_MILLI:
        raise QuantityError(field, value, "too large")
    return milli


def format_quantity(milli: int, *, binary: bool = False) -> str:
    """Return the canonical text of a milli-unit amount.

    Whole amounts print as integers, with the largest exact binary suffix when
    ``binary`` (memory: ``2Gi``) or the largest exact decimal one otherwise
    (``3k`` is not used: plain integers read better for cpu and pods). Fractions
    print in milli-units (``500m``), as Kubernetes prints cpu.
    """
    if milli < 0:
        raise ValueError(f"negative quantity {milli}")
    if milli % 1000:
        return f"{milli}m"
    whole = milli // 1000
    if binary and whole:
        for suffix, factor in sorted(_BINARY.items(), key=lambda item: -item[1]):
            if whole % factor == 0:
                return f"{whole // factor}{suffix}"
    return str(whole)


# Names a PodGroup's minResources carries for ResourceQuota only (``count/pods``,
# ``requests.cpu``, ``limits.memory``): Volcano's ``NewResource`` skips them.
_QUOTA_ONLY_PREFIXES = ("count/", "requests.", "limits.")


def scheduling_quantities(quantities: Mapping[str, int]) -> dict[str, int]:
    """Return a resource list without its quota-only names, as Volcano's scheduler reads it.

    Volcano's job controller writes a PodGroup's minResources as Kubernetes' quota usage of
    its pods (``pods``, ``count/pods``, ``requests.<r>``, ``limits.<r>`` beside the plain
    names); the scheduler keeps the plain names and ``pods`` only.
    """
    return {
        name: amount
        for name, amount in quantities.items()
        if not name.startswith(_QUOTA_ONLY_PREFIXES)
    }
