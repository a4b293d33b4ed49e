"""Admission of v1 kinds: bare Pods and the pod templates every workload carries."""

from __future__ import annotations

from core.admission.pod import admit_pod, validate_pod

__all__ = ["admit_pod", "validate_pod"]
