"""Queue and PodGroup manifests (YAML/JSON ⇄ models), one module per kind."""

from __future__ import annotations

from queues.manifests.pod_group import PodGroupKind
from queues.manifests.queue import QueueKind

__all__ = ["PodGroupKind", "QueueKind"]
