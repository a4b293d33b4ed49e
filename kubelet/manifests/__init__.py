"""The kubelet app's manifest kinds: Numatopology."""

from kubelet.manifests.numatopology import NumatopologyKind

__all__ = ["NumatopologyKind"]
