"""How a sample is stored: the queue columns as NumPy blocks plus two small JSON parts, zlib'd.

Why not plain JSON: a reader of a day per minute decodes 1,440 samples of 100 queues, and
parsing the queues' numbers as text was most of the read (about 1 ms a sample; the blocks
below take microseconds). The queues' per-resource amounts are one int64 block
(field x queue x resource, the engine's own milli-unit rows) and the per-queue figures one
float64 block (field x queue). The rest is JSON in two parts: what the blocks need (names,
resources), then the others (DRF shares, latencies, counts), which a queue chart skips
(``decode(..., queues_only=True)``). ``decode`` gives back the dictionary ``encode`` was
given, with lists.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import numpy as np

__all__ = ["decode", "encode"]

_SCALARS = ("weight", "pending", "inqueue", "running", "share", "share_max")
_AMOUNTS = ("allocated", "deserved", "guarantee", "capability")
_LENGTH = 4  # bytes of each JSON part's length


def _part(value: Any) -> bytes:
    text = json.dumps(value, separators=(",", ":")).encode()
    return len(text).to_bytes(_LENGTH, "little") + text


def encode(data: dict[str, Any]) -> bytes:
    """Return ``data`` (the layout of ``monitoring.sample``) packed and compressed."""
    queues = data["queues"]
    names = queues["name"]
    scalars = [k for k in _SCALARS if k in queues]
    amounts = [k for k in _AMOUNTS if k in queues]
    layout = {"resources": data["resources"], "name": names, "scalars": scalars, "amounts": amounts}
    rest = {k: v for k, v in data.items() if k not in ("queues", "resources")}
    width = len(data["resources"])
    scalar_block = np.array([queues[k] for k in scalars], dtype=np.float64)
    amount_block = np.array([queues[k] for k in amounts], dtype=np.int64)
    body = (
        _part(layout)
        + scalar_block.reshape(len(scalars), len(names)).tobytes()
        + amount_block.reshape(len(amounts), len(names), width).tobytes()
        + _part(rest)
    )
    return zlib.compress(body, 1)


def decode(blob: bytes | memoryview, *, queues_only: bool = False) -> dict[str, Any]:
    """Return the figures ``encode`` packed (only ``resources`` and ``queues`` if asked)."""
    body = zlib.decompress(bytes(blob))
    size = int.from_bytes(body[:_LENGTH], "little")
    layout = json.loads(body[_LENGTH : _LENGTH + size])
    names, scalars, amounts = layout["name"], layout["scalars"], layout["amounts"]
    count, width = len(names), len(layout["resources"])
    start = _LENGTH + size
    scalar_end = start + 8 * len(scalars) * count
    amount_end = scalar_end + 8 * len(amounts) * count * width
    scalar_block = np.frombuffer(body[start:scalar_end], dtype=np.float64)
    amount_block = np.frombuffer(body[scalar_end:amount_end], dtype=np.int64)
    queues: dict[str, Any] = {"name": names}
    queues.update(zip(scalars, scalar_block.reshape(len(scalars), count).tolist(), strict=True))
    queues.update(
        zip(amounts, amount_block.reshape(len(amounts), count, width).tolist(), strict=True)
    )
    data: dict[str, Any] = {"resources": layout["resources"], "queues": queues}
    if not queues_only:
        rest_size = int.from_bytes(body[amount_end : amount_end + _LENGTH], "little")
        rest_start = amount_end + _LENGTH
        data.update(json.loads(body[rest_start : rest_start + rest_size]))
    return data
