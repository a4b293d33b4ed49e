"""Admission of Queues and PodGroups: Volcano's webhook rules, with their defaults."""

from __future__ import annotations

from queues.admission.pod_group import admit_pod_group, validate_pod_group
from queues.admission.queue import ROOT, admit_queue, admit_queue_delete, validate_queue

__all__ = [
    "ROOT",
    "admit_pod_group",
    "admit_queue",
    "admit_queue_delete",
    "validate_pod_group",
    "validate_queue",
]
