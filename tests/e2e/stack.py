"""The embedded stack on an injected clock: controller, scheduler and simulated kubelet in turn."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import yaml
from django.utils import timezone

from core.models import Namespace
from jobs.services import job_submit
from kube.manifests import apply_manifests, load_manifest, read_manifests
from kubelet.runtime import RuntimeSettings, tick
from scheduler.worker import SessionSummary, run_once
from tests.scheduler.factories import make_node

ROOT = Path(__file__).resolve().parents[2]
# The repository's copies of Volcano's examples: the demo's queue and priority class, the jobs.
MANIFEST_DIRS = (ROOT / "scheduler" / "demo" / "manifests", ROOT / "jobs" / "examples")
# Sixty times faster than real time: `sleep 10m` takes ten simulated seconds.
FAST = RuntimeSettings(start_delay=1.0, default_duration=20.0, speed=60.0)


def apply_file(name: str) -> None:
    """Apply one of the repository's copies of Volcano's example manifests."""
    path = next(folder / name for folder in MANIFEST_DIRS if (folder / name).exists())
    apply_manifests(read_manifests(path))


def apply_text(text: str) -> None:
    """Apply manifests given as YAML text (one or more documents), admission included."""
    docs = [d for d in yaml.safe_load_all(text) if d]
    apply_manifests([(f"inline#{i}", load_manifest(d)) for i, d in enumerate(docs, start=1)])


def nodes(count: int, *, cpu: int = 8, memory_gi: int = 32, gpu: int = 0) -> None:
    """Create ``count`` Ready nodes of one shape."""
    for i in range(count):
        make_node(f"node-{i}", cpu=cpu, memory_gi=memory_gi, gpu=gpu)


class Clock:
    """The injected clock: every cycle moves it ``step`` seconds."""

    def __init__(self, step: float = 1.0) -> None:
        self.now: datetime = timezone.now()
        self.step = timedelta(seconds=step)

    def cycle(self, config: RuntimeSettings = FAST) -> SessionSummary:
        """Advance the clock, play the kubelet, run one scheduling cycle."""
        self.now += self.step
        tick(now=self.now, config=config)
        return run_once(now=self.now)

    def run_until(self, done: Callable[[], bool], *, cycles: int = 60) -> int:
        """Cycle until ``done()`` (at most ``cycles`` times); return how many cycles ran."""
        for n in range(1, cycles + 1):
            summary = self.cycle()
            assert not summary.error, summary.error
            if done():
                return n
        raise AssertionError(f"not done after {cycles} cycles")


def job(name: str, *, queue: str = "default", replicas: int = 1, cpu: int = 1,
        duration: str = "30s", min_available: int | None = None, priority_class: str = "",
        policies: list[dict[str, str]] | None = None) -> dict[str, object]:  # fmt: skip
    """Return a Volcano Job manifest of one task whose pods run for ``duration``."""
    spec: dict[str, object] = {
        "schedulerName": "volcano",
        "queue": queue,
        "minAvailable": replicas if min_available is None else min_available,
        "policies": policies or [{"event": "PodEvicted", "action": "RestartJob"}],
        "tasks": [{
            "name": "work", "replicas": replicas,
            "template": {
                "metadata": {"annotations": {"volcano.sh/sim-duration": duration}},
                "spec": {"restartPolicy": "Never", "containers": [{
                    "name": "main", "image": "busybox",
                    "resources": {"requests": {"cpu": str(cpu), "memory": "1Gi"}},
                }]},
            },
        }],
    }  # fmt: skip
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}  # fmt: skip


def submit(manifest: dict[str, object]) -> None:
    """Submit a job manifest through admission, as every entry point does.

    Its namespace is made first when missing: transactional tests flush the migrations' rows,
    and a Job, as through the API, needs its namespace.
    """
    metadata = manifest.get("metadata")
    namespace = metadata.get("namespace", "default") if isinstance(metadata, dict) else "default"
    Namespace.objects.get_or_create(name=str(namespace or "default"))
    job_submit(manifest=manifest)
