"""The topology app's manifest kinds."""

from __future__ import annotations

from topology.manifests.hyper_node import HyperNodeKind

__all__ = ["HyperNodeKind"]
