"""Builders of small HyperNode clusters for the network-topology-aware tests."""

from __future__ import annotations

from typing import Any

import yaml

from scheduler.engine.framework import Session, open_session
from scheduler.engine.util.scenario import load_scenario

TOP = "<cluster-top-hypernode>"


def node(name: str, cpu: str, memory: str = "8Gi", **extra: str) -> dict[str, Any]:
    """Return a Node object with ``cpu``, ``memory`` and ``extra`` resources allocatable."""
    allocatable = {"cpu": cpu, "memory": memory, "pods": "10", **extra}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": allocatable}}  # fmt: skip


def hypernode(name: str, tier: int, members: list[str], kind: str = "Node") -> dict[str, Any]:
    """Return a HyperNode of ``tier`` holding ``members`` (nodes, or HyperNodes)."""
    return {
        "apiVersion": "topology.volcano.sh/v1alpha1",
        "kind": "HyperNode",
        "metadata": {"name": name},
        "spec": {"tier": tier, "members": [
            {"type": kind, "selector": {"exactMatch": {"name": m}}} for m in members]},
    }  # fmt: skip


def pod(
    name: str, namespace: str, node_name: str, cpu: str, group: str = "", **requests: str
) -> dict[str, Any]:
    """Return a pod (of ``group`` if given) running on ``node_name``, or pending without one,
    requesting ``cpu`` and ``requests``."""
    annotations = {"scheduling.k8s.io/group-name": group} if group else {}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "annotations": annotations},
        "spec": {"nodeName": node_name,
                 "containers": [{"name": "main",
                                 "resources": {"requests": {"cpu": cpu, **requests}}}]},
        "status": {"phase": "Running" if node_name else "Pending"},
    }  # fmt: skip


def modulo_tree(nodes: int, per_tier: tuple[int, ...]) -> list[dict[str, Any]]:
    """Return HyperNodes ``hn-<tier>-<index>`` over nodes ``n0``.. ``n<nodes-1>``: node i lies in
    HyperNode i mod ``per_tier[t-1]`` of tier t (a tree when each count divides the one below)."""
    lowest = per_tier[0]
    objects = [
        hypernode(f"hn-1-{h}", 1, [f"n{i}" for i in range(nodes) if i % lowest == h])
        for h in range(lowest)
    ]
    for tier in range(2, len(per_tier) + 1):
        below, count = per_tier[tier - 2], per_tier[tier - 1]
        objects += [
            hypernode(
                f"hn-{tier}-{h}",
                tier,
                [f"hn-{tier - 1}-{c}" for c in range(below) if c % count == h],
                "HyperNode",
            )
            for h in range(count)
        ]
    return objects


def hard_job(name: str, namespace: str, min_cpu: str, highest_tier: int) -> list[dict[str, Any]]:
    """Return an Inqueue hard-topology PodGroup asking ``min_cpu`` at least, and its one pending pod."""
    group = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": name, "namespace": namespace},
             "spec": {"minMember": 1, "minResources": {"cpu": min_cpu},
                      "networkTopology": {"mode": "hard", "highestTierAllowed": highest_tier}},
             "status": {"phase": "Inqueue"}}  # fmt: skip
    return [group, pod(f"{name}-0", namespace, "", "1", name)]


def session(objects: list[dict[str, Any]], arguments: dict[str, Any] | None = None) -> Session:
    """Open an allocate session on ``objects`` with network-topology-aware (given ``arguments``)."""
    plugin: dict[str, Any] = {"name": "network-topology-aware"}
    if arguments:
        plugin["arguments"] = arguments
    conf = yaml.safe_dump({"actions": "allocate", "tiers": [{"plugins": [plugin]}]})
    loaded = load_scenario(yaml.safe_dump({"name": "g", "config": conf, "objects": objects}))
    return open_session(loaded.cluster, loaded.conf)


def two_racks_session(
    busy_cpu: str, min_cpu: str, arguments: dict[str, Any] | None = None
) -> Session:
    """Open a session on racks ``a`` and ``b`` (two 4-cpu nodes each) under ``spine`` (tier 2),
    ``busy_cpu`` running on a1, and a pending hard-topology job ``ns1/pg1`` (tier <= 2) asking
    ``min_cpu`` at least."""
    objects = [
        node("a1", "4"), node("a2", "4"), node("b1", "4"), node("b2", "4"),
        hypernode("a", 1, ["a1", "a2"]), hypernode("b", 1, ["b1", "b2"]),
        hypernode("spine", 2, ["a", "b"], "HyperNode"),
        pod("p1", "ns1", "", "1", "pg1"), pod("busy", "other", "a1", busy_cpu),
    ]  # fmt: skip
    return session([*objects, *hard_job("pg1", "ns1", min_cpu, 2)[:1]], arguments)
