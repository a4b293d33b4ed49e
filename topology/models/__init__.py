"""The topology app's models: import them from here."""

from __future__ import annotations

from topology.models.hyper_node import HyperNode, MemberType

__all__ = ["HyperNode", "MemberType"]
