"""How a sample is stored: the queue columns as NumPy blocks plus small JSON parts, zlib'd.

Why not plain JSON: a reader of a day per minute decodes 1,440 samples of 100 queues, and
parsing the queues' numbers as text was most of the read (about 1 ms a sample; the blocks
below take microseconds). The queues' per-resource amounts are one int64 block
(field x queue x resource, the engine's own milli-unit rows) and the per-queue figures one
float64 block (field x queue). The rest is JSON: what the blocks need (names, resources),
then the session's figures (latencies, counts) and the DRF shares, each part compressed on its
own so a chart decompresses only what it draws (``decode_blocks``, ``decode_sessions``,
``decode_drf``). ``decode`` gives back the dictionary ``encode`` was given, with lists.
Blobs written before the parts were split (one zlib stream) still read.
"""

from __future__ import annotations

import functools
import json
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "DrfBlock",
    "QueueBlocks",
    "decode",
    "decode_blocks",
    "decode_drf",
    "decode_drf_block",
    "decode_rest",
    "decode_sessions",
    "encode",
]

_SCALARS = ("weight", "pending", "inqueue", "running", "pods_pending", "pods_running", "share",
            "share_max")  # fmt: skip
_AMOUNTS = ("allocated", "deserved", "guarantee", "capability")
_LENGTH = 4  # bytes of each part's length
_MAGIC = b"VH3\x00"  # three parts, compressed one by one; the DRF top jobs as columns
_MAGIC_V2 = b"VH2\x00"  # three parts, the DRF top jobs as JSON (older still: one zlib stream)
_SEP = "\n"  # between the top jobs' uids, queues and dominant resources (none holds a newline)


def _part(value: Any) -> bytes:
    text = json.dumps(value, separators=(",", ":")).encode()
    return len(text).to_bytes(_LENGTH, "little") + text


def encode(data: dict[str, Any]) -> bytes:
    """Return ``data`` (the layout ``monitoring/__init__.py`` describes) packed and compressed.

    Three parts, each compressed on its own behind a 4-byte length: the queues (layout JSON
    plus the blocks), the session's figures (latency, counts) and the DRF shares. A chart
    that needs one part decompresses only that one: the latency charts of a day read 1,440
    small parts, not 1,440 whole samples.
    """
    queues = data["queues"]
    names = queues["name"]
    scalars = [k for k in _SCALARS if k in queues]
    amounts = [k for k in _AMOUNTS if k in queues]
    layout = {"resources": data["resources"], "name": names, "scalars": scalars, "amounts": amounts}
    width = len(data["resources"])
    scalar_block = np.array([queues[k] for k in scalars], dtype=np.float64)
    amount_block = np.array([queues[k] for k in amounts], dtype=np.int64)
    body = (
        _part(layout)
        + scalar_block.reshape(len(scalars), len(names)).tobytes()
        + amount_block.reshape(len(amounts), len(names), width).tobytes()
    )
    sessions = {k: v for k, v in data.items() if k not in ("queues", "resources", "drf")}
    parts = (body, _json(sessions), _drf_part(data.get("drf", {"top": [], "queues": {}})))
    return _MAGIC + b"".join(_sized(zlib.compress(part, 1)) for part in parts)


def _drf_part(drf: dict[str, Any]) -> bytes:
    """Return the DRF part: the queue names as JSON; the top jobs as one text of their uids,
    queues and dominant resources (a line each) and their shares as a float64 block; then
    the per-queue ``[jobs, mean, max]`` as one float64 block (queue x 3).

    Why columns, not JSON: a week's DRF chart reads about 1,200 samples, and parsing 50 top
    jobs as JSON per sample was half of its time; splitting one text and reading a block
    takes a few microseconds. The names come first and alone: they are the same sample after
    sample, so a reader parses them once (``_names``)."""
    names = list(drf["queues"])
    stats = np.array([drf["queues"][n] for n in names], dtype=np.float64).reshape(len(names), 3)
    top = drf["top"]
    text = _SEP.join([*(r[0] for r in top), *(r[1] for r in top), *(r[3] for r in top)])
    shares = np.array([r[2] for r in top], dtype=np.float64)
    return (
        _part(names) + len(top).to_bytes(_LENGTH, "little") + _sized(text.encode())
        + shares.tobytes() + stats.tobytes()
    )  # fmt: skip


@functools.lru_cache(maxsize=32)
def _layout(text: bytes) -> dict[str, Any]:
    """Return a queue part's layout; the same sample after sample, so parsed once (read only)."""
    layout: dict[str, Any] = json.loads(text)
    return layout


@functools.lru_cache(maxsize=32)
def _names(text: bytes) -> tuple[str, ...]:
    return tuple(json.loads(text))


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _sized(chunk: bytes) -> bytes:
    return len(chunk).to_bytes(_LENGTH, "little") + chunk


def _version(blob: bytes | memoryview) -> int:
    """Return the layout of a blob: 3 (columns of top jobs), 2 (top jobs as JSON), 1 (one
    zlib stream)."""
    head = bytes(memoryview(blob)[: len(_MAGIC)])
    return 3 if head == _MAGIC else 2 if head == _MAGIC_V2 else 1


def _split(blob: bytes | memoryview) -> list[memoryview] | None:
    """Return the compressed parts of a blob, or None for a single-stream (older) blob."""
    view = memoryview(blob)
    if _version(view) == 1:
        return None
    parts, at = [], len(_MAGIC)
    while at < len(view):
        size = int.from_bytes(view[at : at + _LENGTH], "little")
        parts.append(view[at + _LENGTH : at + _LENGTH + size])
        at += _LENGTH + size
    return parts


@dataclass(frozen=True, slots=True)
class QueueBlocks:
    """A sample's queue columns as stored: names, and the two blocks as arrays (read-only)."""

    resources: list[str]
    names: list[str]
    scalars: list[str]
    amounts: list[str]
    scalar_block: np.ndarray  # field x queue, float64
    amount_block: np.ndarray  # field x queue x resource, int64

    def queues(self) -> dict[str, Any]:
        """Return the columns as lists (the layout ``monitoring/__init__.py`` describes)."""
        queues: dict[str, Any] = {"name": list(self.names)}
        queues.update(zip(self.scalars, self.scalar_block.tolist(), strict=True))
        queues.update(zip(self.amounts, self.amount_block.tolist(), strict=True))
        return queues


def _blocks(body: bytes) -> tuple[QueueBlocks, int]:
    """Return the queue columns at the start of ``body`` and where they end."""
    size = int.from_bytes(body[:_LENGTH], "little")
    layout = _layout(body[_LENGTH : _LENGTH + size])
    names, scalars, amounts = layout["name"], layout["scalars"], layout["amounts"]
    count, width = len(names), len(layout["resources"])
    start = _LENGTH + size
    scalar_end = start + 8 * len(scalars) * count
    amount_end = scalar_end + 8 * len(amounts) * count * width
    scalar_block = np.frombuffer(body[start:scalar_end], dtype=np.float64)
    amount_block = np.frombuffer(body[scalar_end:amount_end], dtype=np.int64)
    blocks = QueueBlocks(
        resources=layout["resources"], names=names, scalars=scalars, amounts=amounts,
        scalar_block=scalar_block.reshape(len(scalars), count),
        amount_block=amount_block.reshape(len(amounts), count, width),
    )  # fmt: skip
    return blocks, amount_end


def decode_blocks(blob: bytes | memoryview) -> QueueBlocks:
    """Return the queue columns of a sample without turning them into lists."""
    parts = _split(blob)
    body = zlib.decompress(parts[0] if parts is not None else bytes(blob))
    return _blocks(body)[0]


def _old_rest(blob: bytes | memoryview) -> dict[str, Any]:
    """Return the JSON after the blocks of a single-stream blob (recorded before the split)."""
    body = zlib.decompress(bytes(blob))
    _blocks_of, at = _blocks(body)
    size = int.from_bytes(body[at : at + _LENGTH], "little")
    rest: dict[str, Any] = json.loads(body[at + _LENGTH : at + _LENGTH + size])
    return rest


def decode_sessions(blob: bytes | memoryview) -> dict[str, Any]:
    """Return the session's figures only (``v``, ``latency``, ``counts``)."""
    parts = _split(blob)
    if parts is None:
        return {k: v for k, v in _old_rest(blob).items() if k != "drf"}
    out: dict[str, Any] = json.loads(zlib.decompress(parts[1]))
    return out


@dataclass(frozen=True, slots=True)
class DrfBlock:
    """A sample's DRF shares as stored: the top jobs, and per queue ``[jobs, mean, max]``."""

    _top: list[list[Any]] | list[str]  # rows, or (columns below) the top jobs' uids
    names: list[str]
    stats: np.ndarray  # queue x 3, float64
    shares: np.ndarray | None = None  # the top jobs' shares, when stored as columns
    queues: list[str] | None = None
    dominants: list[str] | None = None

    @property
    def uids(self) -> list[str]:
        """Return the top jobs' uids, best first."""
        if self.shares is not None:
            return self._top  # type: ignore[return-value]
        return [row[0] for row in self._top]

    def columns(self) -> tuple[list[str], list[str], np.ndarray, list[str]]:
        """Return the top jobs as columns: uids, queues, shares, dominant resources."""
        if self.shares is not None and self.queues is not None and self.dominants is not None:
            return self._top, self.queues, self.shares, self.dominants  # type: ignore[return-value]
        rows = self._top
        shares = np.array([r[2] for r in rows], dtype=np.float64)
        return [r[0] for r in rows], [r[1] for r in rows], shares, [r[3] for r in rows]

    @property
    def top(self) -> list[list[Any]]:
        """Return the top jobs as rows ``[job, queue, share, dominant]``."""
        if self.shares is None:
            return self._top  # type: ignore[return-value]
        uids, queues, shares, dominants = self.columns()
        return [list(r) for r in zip(uids, queues, shares.tolist(), dominants, strict=True)]


def decode_drf_block(blob: bytes | memoryview) -> DrfBlock:
    """Return the DRF shares without building a dictionary per queue."""
    parts = _split(blob)
    if parts is None:
        drf = _old_rest(blob)["drf"]
        names = list(drf["queues"])
        stats = np.array([drf["queues"][n] for n in names], dtype=np.float64)
        return DrfBlock(drf["top"], names, stats.reshape(len(names), 3))
    body = zlib.decompress(parts[2])
    size = int.from_bytes(body[:_LENGTH], "little")
    names = list(_names(body[_LENGTH : _LENGTH + size]))
    at = _LENGTH + size
    if _version(blob) == 2:
        size = int.from_bytes(body[at : at + _LENGTH], "little")
        top = json.loads(body[at + _LENGTH : at + _LENGTH + size])
        stats = np.frombuffer(body[at + _LENGTH + size :], dtype=np.float64)
        return DrfBlock(top, names, stats.reshape(len(names), 3))
    count = int.from_bytes(body[at : at + _LENGTH], "little")
    size = int.from_bytes(body[at + _LENGTH : at + 2 * _LENGTH], "little")
    at += 2 * _LENGTH
    words = body[at : at + size].decode().split(_SEP) if count else []
    at += size
    shares = np.frombuffer(body[at : at + 8 * count], dtype=np.float64)
    stats = np.frombuffer(body[at + 8 * count :], dtype=np.float64).reshape(len(names), 3)
    return DrfBlock(words[:count], names, stats, shares, words[count : 2 * count],
                    words[2 * count :])  # fmt: skip


def decode_drf(blob: bytes | memoryview) -> dict[str, Any]:
    """Return the DRF shares only (``{"drf": {"top": ..., "queues": ...}}``)."""
    block = decode_drf_block(blob)
    queues = dict(zip(block.names, block.stats.tolist(), strict=True))
    return {"drf": {"top": block.top, "queues": queues}}


def decode_rest(blob: bytes | memoryview) -> dict[str, Any]:
    """Return the figures besides the queues: the session's and the DRF shares."""
    parts = _split(blob)
    if parts is None:
        return _old_rest(blob)
    return {**decode_sessions(blob), **decode_drf(blob)}


def decode(blob: bytes | memoryview, *, queues_only: bool = False) -> dict[str, Any]:
    """Return the figures ``encode`` packed (only ``resources`` and ``queues`` if asked)."""
    blocks = decode_blocks(blob)
    data: dict[str, Any] = {"resources": list(blocks.resources), "queues": blocks.queues()}
    if not queues_only:
        data.update(decode_rest(blob))
    return data
