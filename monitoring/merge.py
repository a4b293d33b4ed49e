"""Downsampling: many samples of one time bucket merged into one (pure, no Django).

Per field, one rule (the module docstring of ``monitoring`` gives the why):

- mean, weighted by the sessions each sample holds: queue allocated, deserved and share,
  PodGroup and pod counts, DRF per-queue job count and mean share, latencies;
- max: ``share_max`` (a queue's highest share), ``e2e_max``, the DRF per-queue max share;
- last: weight, guarantee, capability (settings, not load) and the DRF top jobs;
- max: also the unschedulable jobs and tasks: each session sees every job still waiting, so
  a bucket's figure is the most that waited at once (a sum would count one job per session);
- sum: binds, evictions (also by action and by queue), pipelined, and the latency
  histograms' counts per bucket (``monitoring.latency``).

A queue or resource missing from some samples is averaged over the samples that have it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from monitoring.latency import merge_histograms

__all__ = ["merge_samples", "merge_sessions"]

_MEAN = ("pending", "inqueue", "running", "pods_pending", "pods_running", "share")
_MEAN_ROWS = ("allocated", "deserved")
_LAST_ROWS = ("guarantee", "capability")
_COUNTS = ("binds", "evictions", "pipelined")
_PEAKS = ("unschedulable_jobs", "unschedulable_tasks")


def merge_samples(samples: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """Return the merge of ``(sessions, figures)`` pairs, oldest first."""
    total = sum(n for n, _ in samples)
    resources: list[str] = []
    for _, data in samples:
        resources += [r for r in data["resources"] if r not in resources]
    return {
        "v": samples[-1][1]["v"],
        "resources": resources,
        "queues": _queues(samples, resources),
        "drf": _drf(samples),
        "latency": _latency(samples, total),
        "counts": _counts(samples),
    }


def merge_sessions(samples: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """Return the merge of the figures besides the queues: the DRF shares and the session's
    (latency, counts), whichever the samples hold. What a reader needs to fold the newest,
    not yet rolled-up samples into a bucket, without the queue work."""
    total = sum(n for n, _ in samples)
    out: dict[str, Any] = {}
    if all("drf" in data for _, data in samples):
        out["drf"] = _drf(samples)
    if all("latency" in data for _, data in samples):
        out.update(v=samples[-1][1]["v"], latency=_latency(samples, total), counts=_counts(samples))
    return out


def _queues(samples: Sequence[tuple[int, dict[str, Any]]], resources: list[str]) -> dict[str, Any]:
    sums: dict[str, dict[str, Any]] = {}  # queue -> field -> running total (weighted)
    for n, data in samples:
        columns = data["queues"]
        index = [resources.index(r) for r in data["resources"]]
        for i, name in enumerate(columns["name"]):
            acc = sums.setdefault(name, {"n": 0, "share_max": 0.0})
            acc["n"] += n
            acc["weight"] = columns["weight"][i]
            for key in _MEAN:  # pods_*: absent from samples recorded before they were added
                column = columns.get(key)
                acc[key] = acc.get(key, 0.0) + (column[i] if column else 0) * n
            share_max = columns.get("share_max", columns["share"])[i]
            acc["share_max"] = max(acc["share_max"], share_max)
            for key in _MEAN_ROWS:
                row = acc.setdefault(key, [0.0] * len(resources))
                for j, value in zip(index, columns[key][i], strict=True):
                    row[j] += value * n
            for key in _LAST_ROWS:
                row = [0] * len(resources)
                for j, value in zip(index, columns[key][i], strict=True):
                    row[j] = value
                acc[key] = row
    out: dict[str, list[Any]] = {k: [] for k in (
        "name", "weight", *_MEAN, "share_max", *_MEAN_ROWS, *_LAST_ROWS)}  # fmt: skip
    for name in sorted(sums):
        acc = sums[name]
        n = acc["n"]
        out["name"].append(name)
        out["weight"].append(acc["weight"])
        out["share_max"].append(acc["share_max"])
        for key in _MEAN:
            out[key].append(round(acc[key] / n, 6))
        for key in _MEAN_ROWS:
            out[key].append([round(v / n) for v in acc[key]])
        for key in _LAST_ROWS:
            out[key].append(acc[key])
    return out


def _drf(samples: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    sums: dict[str, list[float]] = {}  # queue -> [weight, jobs*n, mean*n, max]
    for n, data in samples:
        for queue, (jobs, mean, most) in data["drf"]["queues"].items():
            acc = sums.setdefault(queue, [0, 0.0, 0.0, 0.0])
            acc[0] += n
            acc[1] += jobs * n
            acc[2] += mean * n
            acc[3] = max(acc[3], most)
    queues = {q: [round(a[1] / a[0], 3), round(a[2] / a[0], 6), a[3]] for q, a in sums.items()}
    return {"top": samples[-1][1]["drf"]["top"], "queues": queues}


def _latency(samples: Sequence[tuple[int, dict[str, Any]]], total: int) -> dict[str, Any]:
    def mean_of(key: str) -> dict[str, float]:
        sums: dict[str, list[float]] = {}
        for n, data in samples:
            for name, ms in data["latency"][key].items():
                acc = sums.setdefault(name, [0, 0.0])
                acc[0] += n
                acc[1] += ms * n
        return {name: round(acc[1] / acc[0], 3) for name, acc in sums.items()}

    out = {
        "e2e": round(sum(d["latency"]["e2e"] * n for n, d in samples) / total, 3),
        "e2e_max": max(d["latency"]["e2e_max"] for _, d in samples),
        "actions": mean_of("actions"),
        "plugins": mean_of("plugins"),
    }
    # Histograms add up; a bucket with samples recorded before them gets none (a partial
    # count would pass for the whole bucket's distribution).
    if all("hist" in d["latency"] for _, d in samples):
        out["hist"] = merge_histograms(d["latency"]["hist"] for _, d in samples)
    return out


def _counts(samples: Sequence[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {key: sum(d["counts"][key] for _, d in samples) for key in _COUNTS}
    out.update({key: max(d["counts"][key] for _, d in samples) for key in _PEAKS})
    by_action: dict[str, int] = {}
    for _, data in samples:
        for action, count in data["counts"]["evictions_by_action"].items():
            by_action[action] = by_action.get(action, 0) + count
    out["evictions_by_action"] = by_action
    by_queue: dict[str, int] = {}
    for _, data in samples:
        for queue, count in data["counts"].get("evictions_by_queue", {}).items():
            by_queue[queue] = by_queue.get(queue, 0) + count
    out["evictions_by_queue"] = by_queue
    return out
