"""How much a simulated container really uses: ``volcano.sh/sim-usage``, percent of its requests.

A simulated container uses exactly what it requests unless its pod says otherwise, beside
``volcano.sh/sim-duration``:

    metadata:
      annotations:
        volcano.sh/sim-usage: "150%"                  # cpu and memory: 1.5 x the requests
        volcano.sh/sim-usage: "cpu=250%,memory=40%"   # each on its own (an omitted one: 100%)

so a node's measured usage (``metrics.k8s.io``, and what Volcano's usage plugin reads) can be
above or below what its pods reserve. A value that is not of this form is ignored (the pod uses
its requests), as a kubelet ignores an annotation it does not understand. Volcano itself has no
such annotation: real containers simply use what they use.

Pure Python: the metrics views and the scheduler's cache both read it.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["SIM_USAGE", "usage_factors"]

SIM_USAGE = "volcano.sh/sim-usage"
_FULL = {"cpu": 1.0, "memory": 1.0}


def _percent(text: str) -> float | None:
    body = text.strip()
    if not body.endswith("%"):
        return None
    try:
        value = float(body[:-1])
    except ValueError:
        return None
    return value / 100.0 if 0 <= value < float("inf") else None


def usage_factors(annotations: Mapping[str, str] | None) -> dict[str, float]:
    """Return ``{"cpu": f, "memory": f}``: the share of its requests the pod really uses."""
    text = (annotations or {}).get(SIM_USAGE)
    if not text:
        return _FULL
    if "=" not in text:
        both = _percent(text)
        return _FULL if both is None else {"cpu": both, "memory": both}
    factors = dict(_FULL)
    for part in text.split(","):
        name, _, value = part.partition("=")
        share = _percent(value)
        if name.strip() not in factors or share is None:
            return _FULL
        factors[name.strip()] = share
    return factors
