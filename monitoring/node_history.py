"""Each node's allocated resources over time: one row per sample holding every node at once.

What is recorded: after a session, at most once per ``VOLCANO_HISTORY_NODE_PERIOD`` seconds
(default 10), the load the worker has just stored for the Nodes pages
(``scheduler.load_status``: the requests of each node's Pending and Running pods, per
resource, and their count). Why compact: 5,000 nodes a sample would be 5,000 rows; here it is
one row whose blob holds the node keys (primary keys) and one int64 block, node x resource
(cpu, memory, GPUs in milli-units, pods x 1000), zlib'd. Nodes holding nothing are left out
(read as 0). A sample of 5,000 busy nodes is about 100 KB raw, a few tens compressed.

Downsampling and retention follow the history's tiers (``VOLCANO_HISTORY_TIERS``,
``monitoring.recorder``), rolled up and pruned in the same pass: a merged sample's figure
is the mean over the bucket's samples, weighted by how many sessions each holds, a node
absent from a sample counting 0 there (it held nothing). Resolution 0 here means one
recorded sample (every ``VOLCANO_HISTORY_NODE_PERIOD``), not one per session.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

import numpy as np
from django.conf import settings
from django.db import models, transaction

__all__ = [
    "NODE_RESOURCES",
    "NodeHistorySample",
    "NodeSeries",
    "choose_node_resolution",
    "compact_node_history",
    "decode_nodes",
    "encode_nodes",
    "merge_node_samples",
    "node_period",
    "node_series",
    "record_node_sample",
]

# The Nodes pages' resources, in the order of a sample's columns.
NODE_RESOURCES = ("cpu", "memory", "nvidia.com/gpu", "pods")
_LENGTH = 4


class NodeHistorySample(models.Model):
    """Every node's allocated resources at one time, at one resolution (``monitoring``'s tiers).

    ``resolution`` 0 is one recorded sample; N is the merge of an N-second bucket starting at
    ``at``; ``samples`` counts the recorded samples merged into it.
    """

    at = models.DateTimeField()
    resolution = models.PositiveIntegerField(default=0, help_text="seconds; 0: one sample")
    samples = models.PositiveIntegerField(default=1)
    data = models.BinaryField(help_text="node keys + node x resource int64 block, zlib'd")

    class Meta:
        app_label = "monitoring"
        indexes = (models.Index(fields=["resolution", "at"], name="node_history_res_at"),)
        ordering = ("resolution", "at")

    def __str__(self) -> str:
        return f"node history {self.at:%Y-%m-%d %H:%M:%S} @{self.resolution}s ({self.samples})"


def encode_nodes(keys: Sequence[int], block: np.ndarray) -> bytes:
    """Return node ``keys`` and their ``block`` (node x ``NODE_RESOURCES``) packed."""
    header = json.dumps({"n": len(keys), "resources": list(NODE_RESOURCES)}).encode()
    body = (
        len(header).to_bytes(_LENGTH, "little")
        + header
        + np.asarray(keys, dtype=np.int64).tobytes()
        + np.asarray(block, dtype=np.int64).reshape(len(keys), len(NODE_RESOURCES)).tobytes()
    )
    return zlib.compress(body, 1)


def decode_nodes(blob: bytes | memoryview) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(keys, block)`` as ``encode_nodes`` packed them (read-only arrays)."""
    body = zlib.decompress(bytes(blob))
    size = int.from_bytes(body[:_LENGTH], "little")
    header = json.loads(body[_LENGTH : _LENGTH + size])
    count, width = int(header["n"]), len(header["resources"])
    start = _LENGTH + size
    keys = np.frombuffer(body[start : start + 8 * count], dtype=np.int64)
    block = np.frombuffer(body[start + 8 * count :], dtype=np.int64).reshape(count, width)
    return keys, block


def node_period() -> float:
    """Return the seconds between two recorded samples (``VOLCANO_HISTORY_NODE_PERIOD``)."""
    value = getattr(settings, "VOLCANO_HISTORY_NODE_PERIOD", None)
    if value is None or value == "":
        value = os.environ.get("VOLCANO_HISTORY_NODE_PERIOD")
    return 10.0 if value is None or value == "" else float(value)


def record_node_sample(
    loads: Mapping[int, tuple[int, int, int, int]], *, now: datetime
) -> NodeHistorySample | None:
    """Store ``loads`` (node pk → cpu, memory, gpu, pod count) unless a sample is too recent.

    Returns the stored row, or None when the last one is younger than ``node_period()``.
    """
    last = (
        NodeHistorySample.objects.filter(resolution=0)
        .order_by("-at")
        .values_list("at", flat=True)
        .first()
    )
    if last is not None and (now - last).total_seconds() < node_period():
        return None
    keys = sorted(k for k, held in loads.items() if any(held))
    block = np.array(
        [(c, m, g, p * 1000) for c, m, g, p in (loads[k] for k in keys)], dtype=np.int64
    )
    return NodeHistorySample.objects.create(
        at=now, resolution=0, samples=1, data=encode_nodes(keys, block)
    )


def merge_node_samples(samples: Sequence[tuple[int, bytes | memoryview]]) -> bytes:
    """Return the merge of ``(samples, blob)`` pairs: each node's mean, weighted, 0 if absent."""
    decoded = [(n, *decode_nodes(blob)) for n, blob in samples]
    total = sum(n for n, _k, _b in decoded)
    keys = np.unique(np.concatenate([k for _n, k, _b in decoded])) if decoded else np.array([])
    sums = np.zeros((len(keys), len(NODE_RESOURCES)), dtype=np.float64)
    for n, k, block in decoded:
        sums[np.searchsorted(keys, k)] += block * n
    return encode_nodes(keys.tolist(), np.rint(sums / max(total, 1)).astype(np.int64))


def _bucket(at: datetime, resolution: int) -> datetime:
    return datetime.fromtimestamp(int(at.timestamp()) // resolution * resolution, tz=UTC)


def compact_node_history(levels: Sequence[Any], *, now: datetime) -> dict[str, int]:
    """Roll each tier's whole buckets into the next (``levels``: ``recorder.Tier``s, finest
    first), then delete samples older than their tier keeps, and tiers no longer configured."""
    rolled = pruned = 0
    with transaction.atomic():
        for source, target in pairwise(levels):
            rolled += _roll_up(source.resolution, target.resolution, now)
        for tier in levels:
            cutoff = now - timedelta(seconds=tier.keep)
            pruned += NodeHistorySample.objects.filter(
                resolution=tier.resolution, at__lt=cutoff
            ).delete()[0]
        pruned += NodeHistorySample.objects.exclude(
            resolution__in=[t.resolution for t in levels]
        ).delete()[0]
    return {"rolled": rolled, "pruned": pruned}


def _roll_up(source: int, target: int, now: datetime) -> int:
    newest = (
        NodeHistorySample.objects.filter(resolution=target)
        .order_by("-at")
        .values_list("at", flat=True)
        .first()
    )
    rows = NodeHistorySample.objects.filter(resolution=source, at__lt=_bucket(now, target))
    if newest is not None:
        rows = rows.filter(at__gte=newest + timedelta(seconds=target))
    buckets: dict[datetime, list[tuple[int, bytes]]] = {}
    for at, n, blob in rows.order_by("at").values_list("at", "samples", "data").iterator():
        buckets.setdefault(_bucket(at, target), []).append((n, bytes(blob)))
    NodeHistorySample.objects.bulk_create(
        NodeHistorySample(at=at, resolution=target, samples=sum(n for n, _ in group),
                          data=merge_node_samples(group))
        for at, group in buckets.items()
    )  # fmt: skip
    return len(buckets)


@dataclass(slots=True)
class NodeSeries:
    """One node's allocated amounts over time: per resource (milli-units; pods x 1000)."""

    resolution: int
    times: list[str] = field(default_factory=list)
    allocated: dict[str, list[int]] = field(default_factory=dict)


def choose_node_resolution(
    since: datetime, until: datetime, *, now: datetime, max_points: int = 720
) -> int:
    """Return the finest tier that still holds ``since`` with at most ``max_points`` samples
    (the finest tier holds one sample per ``node_period()``, not one per session)."""
    from monitoring.recorder import tiers  # the recorder imports this module to compact it

    levels = tiers()
    span = max((until - since).total_seconds(), 0.0)
    for tier in levels:
        step = tier.resolution or node_period()
        if since >= now - timedelta(seconds=tier.keep) and span / max(step, 1.0) <= max_points:
            return tier.resolution
    return levels[-1].resolution


def node_series(key: int, since: datetime, until: datetime, *, resolution: int) -> NodeSeries:
    """Return node ``key``'s allocated per resource over the range at ``resolution``.

    A coarser tier holds whole buckets only (rolled up once a minute): the finest samples
    after its last bucket are appended, so the newest minutes are drawn too.
    """
    out = NodeSeries(resolution=resolution, allocated={r: [] for r in NODE_RESOURCES})
    rows = list(
        NodeHistorySample.objects.filter(resolution=resolution, at__gte=since, at__lte=until)
        .order_by("at")
        .values_list("at", "data")
    )
    if resolution:
        start = rows[-1][0] + timedelta(seconds=resolution) if rows else since
        rows += (
            NodeHistorySample.objects.filter(resolution=0, at__gte=start, at__lte=until)
            .order_by("at")
            .values_list("at", "data")
        )
    for at, blob in rows:
        keys, block = decode_nodes(blob)
        index = int(np.searchsorted(keys, key))
        found = index < len(keys) and int(keys[index]) == key
        values = block[index].tolist() if found else [0] * len(NODE_RESOURCES)
        out.times.append(at.isoformat())
        for resource, value in zip(NODE_RESOURCES, values, strict=True):
            out.allocated[resource].append(int(value))
    return out
