"""HyperNode manifests (topology.volcano.sh/v1alpha1), read and written in Volcano's shape.

Reading checks the shape only (types, unknown fields, ``spec.tier`` present); the values are
judged by admission (``topology.admission``), which names every bad one at once. Members are
kept exactly as written, a selector given as ``{}`` apart from one left out, because Volcano's
rules tell the two apart. The status is the controller's and only round-trips.
"""

from __future__ import annotations

from typing import Any, ClassVar

from apis.wire import Fields, Manifest, type_name
from kube.manifest_kinds import Kind, Loaded
from topology.models import HyperNode

__all__ = ["HyperNodeKind"]


def _read_expression(expression: Fields) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for key in ("key", "operator"):
        if expression.raw(key) is not None:
            item[key] = expression.string(key)
    if expression.raw("values") is not None:
        item["values"] = expression.strings("values")
    expression.done()
    return item


def _read_label_match(selector: Fields) -> dict[str, Any]:
    """Return a ``metav1.LabelSelector`` as written (its values are admission's to judge)."""
    result: dict[str, Any] = {}
    if selector.raw("matchLabels") is not None:
        result["matchLabels"] = selector.string_map("matchLabels")
    if selector.raw("matchExpressions") is not None:
        result["matchExpressions"] = [
            _read_expression(item) for item in selector.objects("matchExpressions")
        ]
    selector.done()
    return result


def _read_selector(selector: Fields) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, key in (("exactMatch", "name"), ("regexMatch", "pattern")):
        if selector.raw(name) is None:
            continue
        match = selector.obj(name)
        result[name] = {key: match.string(key)} if match.raw(key) is not None else {}
        match.done()
    if selector.raw("labelMatch") is not None:
        result["labelMatch"] = _read_label_match(selector.obj("labelMatch"))
    selector.done()
    return result


def _read_member(member: Fields) -> dict[str, Any]:
    item: dict[str, Any] = {}
    if member.raw("type") is not None:
        item["type"] = member.string("type")
    if member.raw("selector") is not None:
        item["selector"] = _read_selector(member.obj("selector"))
    member.done()
    return item


class HyperNodeKind(Kind):
    """``topology.volcano.sh/v1alpha1`` HyperNode."""

    api_version = "topology.volcano.sh/v1alpha1"
    kind = "HyperNode"
    resource = "hypernode.topology.volcano.sh"
    model = HyperNode
    namespaced = False
    spec_fields = ("tier", "tier_name", "members")
    wire_paths: ClassVar[dict[str, str]] = {
        "name": "metadata.name",
        "tier": "spec.tier",
        "tier_name": "spec.tierName",
        "members": "spec.members",
    }

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        hyper_node: HyperNode = loaded.instance
        spec = doc.obj("spec")
        tier = spec.raw("tier")
        if tier is None:
            raise spec.error("tier", "Required value")
        if isinstance(tier, bool) or not isinstance(tier, int):
            raise spec.error("tier", f"expected an integer, got {type_name(tier)}")
        hyper_node.tier = tier
        hyper_node.tier_name = spec.string("tierName")
        members = spec.raw("members")
        # ``members: []`` is kept apart from no members: Volcano's rules word them apart.
        hyper_node.members = (
            None if members is None else [_read_member(item) for item in spec.objects("members")]
        )
        spec.done()
        self.read_status(doc.obj("status"), hyper_node)

    def read_status(self, status: Fields, hyper_node: HyperNode) -> None:
        """Read the controller's status (``/status`` writes; a dumped HyperNode loads back)."""
        hyper_node.node_count = status.integer("nodeCount", 0, minimum=0)
        hyper_node.conditions = status.json("conditions", [])
        status.done()

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Refuse what Volcano's CRD schema, its ValidatingAdmissionPolicy and webhook refuse."""
        # Admission judges what this kind read: the two modules need each other.
        from topology.admission import admit_hyper_node

        admit_hyper_node(loaded.instance)

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        hyper_node: HyperNode = instance
        spec: Manifest = {"tier": hyper_node.tier}
        if hyper_node.tier_name:
            spec["tierName"] = hyper_node.tier_name
        if hyper_node.members is not None:
            spec["members"] = [dict(member) for member in hyper_node.members]
        status: Manifest = {}
        if hyper_node.conditions:
            status["conditions"] = list(hyper_node.conditions)
        # ``nodeCount`` is omitempty in Volcano's API: a HyperNode that covers no node has none.
        if hyper_node.node_count:
            status["nodeCount"] = hyper_node.node_count
        manifest: Manifest = {"spec": spec}
        if status:
            manifest["status"] = status
        return manifest
