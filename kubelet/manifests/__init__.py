"""The kubelet app's manifest kinds: Numatopology."""

from __future__ import annotations

from kubelet.manifests.numatopology import NumatopologyKind

__all__ = ["NumatopologyKind"]
