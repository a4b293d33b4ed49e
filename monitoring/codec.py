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
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["QueueBlocks", "decode", "decode_blocks", "decode_rest", "encode"]

_SCALARS = ("weight", "pending", "inqueue", "running", "pods_pending", "pods_running", "share",
            "share_max")  # fmt: skip
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


@dataclass(frozen=True, slots=True)
class QueueBlocks:
    """A sample's queue columns as stored: names, and the two blocks as arrays (read-only)."""

    resources: list[str]
    names: list[str]
    scalars: list[str]
    amounts: list[str]
    scalar_block: np.ndarray  # field x queue, float64
    amount_block: np.ndarray  # field x queue x resource, int64
    rest_at: int  # where the second JSON part starts in ``body``
    body: bytes

    def queues(self) -> dict[str, Any]:
        """Return the columns as lists (the layout of ``monitoring.sample``)."""
        queues: dict[str, Any] = {"name": self.names}
        queues.update(zip(self.scalars, self.scalar_block.tolist(), strict=True))
        queues.update(zip(self.amounts, self.amount_block.tolist(), strict=True))
        return queues


def decode_blocks(blob: bytes | memoryview) -> QueueBlocks:
    """Return the queue columns of a sample without turning them into lists."""
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
    return QueueBlocks(
        resources=layout["resources"], names=names, scalars=scalars, amounts=amounts,
        scalar_block=scalar_block.reshape(len(scalars), count),
        amount_block=amount_block.reshape(len(amounts), count, width),
        rest_at=amount_end, body=body,
    )  # fmt: skip


def decode(blob: bytes | memoryview, *, queues_only: bool = False) -> dict[str, Any]:
    """Return the figures ``encode`` packed (only ``resources`` and ``queues`` if asked)."""
    blocks = decode_blocks(blob)
    data: dict[str, Any] = {"resources": blocks.resources, "queues": blocks.queues()}
    if not queues_only:
        body, at = blocks.body, blocks.rest_at
        size = int.from_bytes(body[at : at + _LENGTH], "little")
        data.update(json.loads(body[at + _LENGTH : at + _LENGTH + size]))
    return data


def decode_rest(blob: bytes | memoryview) -> dict[str, Any]:
    """Return the figures besides the queues (DRF shares, latencies, counts) and ``resources``,
    skipping the queue blocks: what the session and DRF charts read."""
    body = zlib.decompress(bytes(blob))
    size = int.from_bytes(body[:_LENGTH], "little")
    layout = json.loads(body[_LENGTH : _LENGTH + size])
    count, width = len(layout["name"]), len(layout["resources"])
    at = _LENGTH + size + 8 * count * (len(layout["scalars"]) + len(layout["amounts"]) * width)
    rest_size = int.from_bytes(body[at : at + _LENGTH], "little")
    data: dict[str, Any] = json.loads(body[at + _LENGTH : at + _LENGTH + rest_size])
    data["resources"] = layout["resources"]
    return data
