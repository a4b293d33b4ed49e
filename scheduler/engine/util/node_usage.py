"""A scenario node's measured usage, from the annotation ``volcano.sh/sim-node-usage``.

Volcano's usage plugin reads ``node.ResourceUsage``, which its cache fills from a metrics source
(Prometheus, Elasticsearch or the custom metrics API); a Node object does not carry it. A scenario
has no metrics source, so a node states what one would report in an annotation:

    metadata:
      annotations:
        volcano.sh/sim-node-usage: "cpu=81,mem=60,age=6m"

``cpu`` and ``mem`` are the average use over the metrics period (``10m``) in percent of the
node's capacity (0 when left out); ``age`` (a Go duration, default 0) is how long before the
session's clock the metrics were taken, so ``age=6m`` is metrics the plugin treats as stale.
A node without the annotation has no metrics at all (Volcano's zero metrics time).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from apis.durations import parse_duration
from apis.errors import ManifestError
from scheduler.engine.api.node_info import NO_USAGE, NODE_METRICS_PERIOD, NodeUsage

__all__ = ["SIM_NODE_USAGE", "node_usage_annotation", "read_node_usage"]

SIM_NODE_USAGE = "volcano.sh/sim-node-usage"
_KEYS = ("cpu", "mem", "age")


def read_node_usage(annotations: dict[str, str], now: datetime, field: str) -> NodeUsage:
    """Return the usage a node's annotation states, or ``NO_USAGE`` when it has none.

    ``field`` is the node's path in the scenario; a malformed value raises ``ManifestError``
    naming the annotation.
    """
    text = annotations.get(SIM_NODE_USAGE)
    if text is None:
        return NO_USAGE
    where = f"{field}.metadata.annotations.{SIM_NODE_USAGE}"
    values: dict[str, str] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in _KEYS or key in values:
            raise ManifestError(
                where, f"expected cpu=<percent>,mem=<percent>,age=<duration>, got {text!r}"
            )
        values[key] = value.strip()
    percent: dict[str, float] = {}
    for key in ("cpu", "mem"):
        try:
            percent[key] = float(values.get(key, "0").rstrip("%"))
        except ValueError as exc:
            raise ManifestError(
                where, f"{key}: expected a percentage, got {values[key]!r}"
            ) from exc
        if not 0 <= percent[key] <= 100:
            raise ManifestError(where, f"{key}: expected 0 to 100, got {values[key]!r}")
    try:
        age = parse_duration(values.get("age", "0"))
    except ValueError as exc:
        raise ManifestError(where, f"age: {exc}") from exc
    return NodeUsage(
        metrics_time=now - timedelta(seconds=age),
        cpu_usage_avg={NODE_METRICS_PERIOD: percent["cpu"]},
        mem_usage_avg={NODE_METRICS_PERIOD: percent["mem"]},
    )


def node_usage_annotation(usage: NodeUsage, now: datetime) -> str | None:
    """Return the annotation text that states ``usage`` at clock ``now`` (None: no metrics).

    The inverse of ``read_node_usage``, for exporting a live snapshot as a scenario.
    """
    if usage.metrics_time is None:
        return None
    cpu = usage.cpu_usage_avg.get(NODE_METRICS_PERIOD, 0.0)
    mem = usage.mem_usage_avg.get(NODE_METRICS_PERIOD, 0.0)
    text = f"cpu={_number(cpu)},mem={_number(mem)}"  # exact: a replay reads the same floats
    age = int((now - usage.metrics_time).total_seconds())
    return f"{text},age={age}s" if age > 0 else text


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
