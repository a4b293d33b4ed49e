"""Go-style durations (``90s``, ``1m30s``, ``1.5h``, ``-5m``), the one parser of the house.

Volcano writes durations the way Go's ``time.ParseDuration`` reads them: the sla plugin's
``sla-waiting-time``, a lifecycle policy's ``timeout``, the simulated pod's
``volcano.sh/sim-duration``. The engine, the job controller and the simulated kubelet all
read them here, so the grammar is the same everywhere.
"""

from __future__ import annotations

import re

__all__ = ["format_duration", "parse_duration"]

_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> float:
    """Return the seconds in a Go duration string; ``ValueError`` when it is not one."""
    body = text.strip()
    sign = -1.0 if body.startswith("-") else 1.0
    body = body.lstrip("+-")
    if body == "0":
        return 0.0
    position, total = 0, 0.0
    while position < len(body):
        match = _PART.match(body, position)
        if match is None:
            raise ValueError(f"invalid duration {text!r} (expected e.g. 90s, 5m, 1h30m)")
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if not body:
        raise ValueError(f"invalid duration {text!r} (expected e.g. 90s, 5m, 1h30m)")
    return sign * total


def _fraction(amount: int, unit: int) -> str:
    whole, part = divmod(amount, unit)
    digits = str(part).rjust(len(str(unit)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}" if digits else str(whole)


def format_duration(seconds: float) -> str:
    """Return ``seconds`` as Go's ``time.Duration.String()`` writes it (``5m0s``, ``1.5s``).

    Volcano's events quote durations this way ("Execute action AbortJob after 5m0s").
    """
    nanos = round(seconds * 1_000_000_000)
    if nanos == 0:
        return "0s"
    sign, nanos = ("-" if nanos < 0 else ""), abs(nanos)
    if nanos < 1_000:
        return f"{sign}{nanos}ns"
    if nanos < 1_000_000:
        return f"{sign}{_fraction(nanos, 1_000)}µs"
    if nanos < 1_000_000_000:
        return f"{sign}{_fraction(nanos, 1_000_000)}ms"
    hours, rest = divmod(nanos, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    text = f"{hours}h" if hours else ""
    if hours or minutes:
        text += f"{minutes}m"
    return f"{sign}{text}{_fraction(rest, 1_000_000_000)}s"
