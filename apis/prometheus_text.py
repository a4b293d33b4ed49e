"""The Prometheus text format, written with Volcano's exact series names.

Why not prometheus_client's exposition: it renames every counter to ``<name>_total``, so
Volcano's ``volcano_total_preemption_attempts`` or ``volcano_job_completed_phase_count`` would
come out under names Volcano's Grafana dashboards do not query. Go's client keeps a counter's
name as registered; so do we. The format is the text format 0.0.4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["CONTENT_TYPE", "Family", "render"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    return repr(float(value))


@dataclass(slots=True)
class Family:
    """One metric: name, type (counter, gauge, histogram), help and its samples."""

    name: str
    type: str
    help: str
    samples: list[tuple[str, dict[str, str], float]] = field(default_factory=list)

    def add(self, labels: dict[str, str], value: float) -> None:
        """Add a counter or gauge sample."""
        self.samples.append((self.name, labels, value))

    def add_histogram(
        self, labels: dict[str, str], cumulative: list[tuple[float, int]], count: int, total: float
    ) -> None:
        """Add a histogram series: cumulative ``(upper bound, count)`` pairs, count and sum."""
        for bound, n in cumulative:
            self.samples.append((f"{self.name}_bucket", {**labels, "le": _number(bound)}, n))
        self.samples.append((f"{self.name}_bucket", {**labels, "le": "+Inf"}, count))
        self.samples.append((f"{self.name}_sum", labels, total))
        self.samples.append((f"{self.name}_count", labels, count))


def render(families: list[Family]) -> str:
    """Return the exposition text of ``families``."""
    lines: list[str] = []
    for family in families:
        lines.append(f"# HELP {family.name} {_escape(family.help)}")
        lines.append(f"# TYPE {family.name} {family.type}")
        for name, labels, value in family.samples:
            if labels:
                text = ",".join(f'{k}="{_escape(str(v))}"' for k, v in labels.items())
                lines.append(f"{name}{{{text}}} {_number(value)}")
            else:
                lines.append(f"{name} {_number(value)}")
    return "\n".join(lines) + "\n"
