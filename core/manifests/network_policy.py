"""NetworkPolicy manifests (networking.k8s.io/v1): the spec kept as sent, its shape checked.

Selectors are checked for their shape (``matchLabels`` of strings, ``matchExpressions`` with
a known operator) and ``policyTypes`` for their values; when a policy names none, it gets
``Ingress``, plus ``Egress`` if it has egress rules, as kube-apiserver defaults them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from apis.wire import Fields, Manifest
from core.models import NetworkPolicy
from kube.manifest_kinds import Kind, Loaded

__all__ = ["NetworkPolicyKind", "read_label_selector"]

POLICY_TYPES = ("Ingress", "Egress")
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def read_label_selector(selector: Fields) -> dict[str, Any]:
    """Return a ``LabelSelector`` read from ``selector`` (matchLabels, matchExpressions)."""
    result: dict[str, Any] = {}
    if labels := selector.string_map("matchLabels"):
        result["matchLabels"] = labels
    expressions = []
    for expression in selector.objects("matchExpressions"):
        key = expression.string("key", required=True)
        operator = expression.string("operator", required=True)
        if operator not in OPERATORS:
            allowed = ", ".join(f'"{o}"' for o in OPERATORS)
            raise expression.error(
                "operator", f"Unsupported value: {operator!r}: supported values: {allowed}"
            )
        item: dict[str, Any] = {"key": key, "operator": operator}
        values = expression.strings("values")
        if operator in ("In", "NotIn") and not values:
            raise expression.error("values", "Required value: must be specified for In or NotIn")
        if operator in ("Exists", "DoesNotExist") and values:
            raise expression.error("values", "Forbidden: may not be specified for Exists")
        if values:
            item["values"] = values
        expression.done()
        expressions.append(item)
    if expressions:
        result["matchExpressions"] = expressions
    selector.done()
    return result


def _peers(rule: Fields, key: str) -> list[dict[str, Any]]:
    peers = []
    for peer in rule.objects(key):
        item: dict[str, Any] = {}
        for name in ("podSelector", "namespaceSelector"):
            if peer.has(name):
                item[name] = read_label_selector(peer.obj(name))
        if peer.has("ipBlock"):
            item["ipBlock"] = peer.json("ipBlock", {})
        peer.done()
        peers.append(item)
    return peers


class NetworkPolicyKind(Kind):
    """``networking.k8s.io/v1`` NetworkPolicy."""

    api_version = "networking.k8s.io/v1"
    kind = "NetworkPolicy"
    resource = "networkpolicy.networking.k8s.io"
    model = NetworkPolicy
    spec_fields = ("spec",)
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name"}

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        policy: NetworkPolicy = loaded.instance
        spec = doc.obj("spec")
        body: dict[str, Any] = {"podSelector": read_label_selector(spec.obj("podSelector"))}
        for direction, peers in (("ingress", "from"), ("egress", "to")):
            rules = []
            for rule in spec.objects(direction):
                item: dict[str, Any] = {}
                if found := _peers(rule, peers):
                    item[peers] = found
                if rule.has("ports"):
                    item["ports"] = rule.json("ports", [])
                rule.done()
                rules.append(item)
            if rules:
                body[direction] = rules
        types = spec.strings("policyTypes")
        for index, value in enumerate(types):
            if value not in POLICY_TYPES:
                allowed = ", ".join(f'"{t}"' for t in POLICY_TYPES)
                raise spec.error(
                    f"policyTypes[{index}]",
                    f"Unsupported value: {value!r}: supported values: {allowed}",
                )
        if not types:
            types = ["Ingress", "Egress"] if "egress" in body else ["Ingress"]
        body["policyTypes"] = types
        spec.done()
        doc.ignore("status")
        policy.spec = body

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        policy: NetworkPolicy = instance
        return {"spec": dict(policy.spec)}
