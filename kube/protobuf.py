"""The few Kubernetes protobuf bodies kubectl sends: ``kubectl create namespace``, ``kubectl
create quota``, ``kubectl create pdb`` and an eviction (``kubectl drain``).

kubectl's typed clients send built-in kinds as ``application/vnd.kubernetes.protobuf``: the
envelope ``k8s\\x00`` then a ``runtime.Unknown`` (typeMeta, raw) whose ``raw`` is the object.
Only what those commands send is decoded (ObjectMeta: name, generateName, namespace, labels,
annotations; a ResourceQuota's ``spec.hard`` and ``spec.scopes``; a PodDisruptionBudget's
spec; an Eviction's ``deleteOptions``); anything else stays a 415. The decoder reads protobuf's wire format
directly (varints and length-delimited fields), bounded by the body limit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kube.status import KubeError

__all__ = ["PROTOBUF", "decode_protobuf"]

PROTOBUF = "application/vnd.kubernetes.protobuf"
_MAGIC = b"k8s\x00"
_DECODABLE = {
    ("v1", "Namespace"),
    ("v1", "ResourceQuota"),
    ("policy/v1", "PodDisruptionBudget"),
    ("policy/v1", "Eviction"),
    ("policy/v1beta1", "Eviction"),
}


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise KubeError(400, "the protobuf body is truncated")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def _fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """Yield ``(field number, value)``: ints for varints, bytes for length-delimited."""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
            yield number, value
        elif wire == 2:
            size, at = _varint(data, at)
            if at + size > len(data):
                raise KubeError(400, "the protobuf body is truncated")
            yield number, data[at : at + size]
            at += size
        elif wire == 1:
            at += 8
        elif wire == 5:
            at += 4
        else:
            raise KubeError(400, f"unsupported protobuf wire type {wire}")


def _text(value: int | bytes) -> str:
    if not isinstance(value, bytes):
        raise KubeError(400, "the protobuf body has a number where text belongs")
    return value.decode("utf-8")


def _string_map(entries: list[bytes]) -> dict[str, str]:
    result = {}
    for entry in entries:
        pair = {n: _text(v) for n, v in _fields(entry)}
        result[pair.get(1, "")] = pair.get(2, "")
    return result


def _object_meta(data: bytes) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    labels: list[bytes] = []
    annotations: list[bytes] = []
    for number, value in _fields(data):
        if number == 1:
            meta["name"] = _text(value)
        elif number == 2:
            meta["generateName"] = _text(value)
        elif number == 3:
            meta["namespace"] = _text(value)
        elif number == 11 and isinstance(value, bytes):
            labels.append(value)
        elif number == 12 and isinstance(value, bytes):
            annotations.append(value)
    if labels:
        meta["labels"] = _string_map(labels)
    if annotations:
        meta["annotations"] = _string_map(annotations)
    return {k: v for k, v in meta.items() if v != ""}


def _signed(value: int | bytes) -> int:
    """Return a varint as the signed 64-bit number it encodes (int32/int64 fields)."""
    if not isinstance(value, int):
        raise KubeError(400, "the protobuf body has text where a number belongs")
    return value - (1 << 64) if value >= 1 << 63 else value


def _groups(data: bytes) -> dict[int, list[int | bytes]]:
    """Return each field number's values, in order (repeated fields and map entries)."""
    found: dict[int, list[int | bytes]] = {}
    for number, value in _fields(data):
        found.setdefault(number, []).append(value)
    return found


def _int_or_string(data: bytes) -> int | str:
    fields = _groups(data)
    if _signed(fields.get(1, [0])[-1]) == 1:  # type String
        return _text(fields.get(3, [b""])[-1])
    return _signed(fields.get(2, [0])[-1])


def _label_selector(data: bytes) -> dict[str, Any]:
    fields = _groups(data)
    selector: dict[str, Any] = {}
    if labels := [v for v in fields.get(1, []) if isinstance(v, bytes)]:
        selector["matchLabels"] = _string_map(labels)
    expressions = []
    for value in fields.get(2, []):
        if isinstance(value, bytes):
            term = _groups(value)
            expression: dict[str, Any] = {
                "key": _text(term.get(1, [b""])[-1]),
                "operator": _text(term.get(2, [b""])[-1]),
            }
            if values := [_text(v) for v in term.get(3, [])]:
                expression["values"] = values
            expressions.append(expression)
    if expressions:
        selector["matchExpressions"] = expressions
    return selector


def _quota_spec(data: bytes) -> dict[str, Any]:
    fields = _groups(data)
    hard: dict[str, str] = {}
    for entry in fields.get(1, []):
        if isinstance(entry, bytes):
            pair = _groups(entry)
            quantity = pair.get(2, [b""])[-1]
            amount = _groups(quantity).get(1, [b""])[-1] if isinstance(quantity, bytes) else b""
            hard[_text(pair.get(1, [b""])[-1])] = _text(amount)
    spec: dict[str, Any] = {"hard": hard}
    if scopes := [_text(v) for v in fields.get(2, [])]:
        spec["scopes"] = scopes
    return spec


def _budget_spec(data: bytes) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    for number, value in _fields(data):
        if number in (1, 3) and isinstance(value, bytes):
            spec["minAvailable" if number == 1 else "maxUnavailable"] = _int_or_string(value)
        elif number == 2 and isinstance(value, bytes):
            spec["selector"] = _label_selector(value)
        elif number == 4 and (policy := _text(value)):
            spec["unhealthyPodEvictionPolicy"] = policy
    return spec


def _delete_options(data: bytes) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for number, value in _fields(data):
        if number == 1:
            options["gracePeriodSeconds"] = _signed(value)
        elif number == 2 and isinstance(value, bytes):
            pre = _groups(value)
            options["preconditions"] = {
                key: _text(pre[n][-1])
                for n, key in ((1, "uid"), (2, "resourceVersion"))
                if n in pre
            }
        elif number == 4:
            options["propagationPolicy"] = _text(value)
        elif number == 5:
            options.setdefault("dryRun", []).append(_text(value))
    return options


# What follows ``metadata`` (field 1) in each decodable kind: field number → (key, reader).
_BODIES: dict[str, dict[int, tuple[str, Any]]] = {
    "ResourceQuota": {2: ("spec", _quota_spec)},
    "PodDisruptionBudget": {2: ("spec", _budget_spec)},
    "Eviction": {2: ("deleteOptions", _delete_options)},
}


def decode_protobuf(body: bytes) -> dict[str, Any]:
    """Return the JSON form of a protobuf-encoded Namespace, ResourceQuota,
    PodDisruptionBudget or Eviction; 415 for other kinds."""
    if not body.startswith(_MAGIC):
        raise KubeError(400, "the protobuf body lacks the k8s envelope")
    type_meta: dict[int, str] = {}
    raw = b""
    for number, value in _fields(body[len(_MAGIC) :]):
        if number == 1 and isinstance(value, bytes):
            type_meta = {n: _text(v) for n, v in _fields(value)}
        elif number == 2 and isinstance(value, bytes):
            raw = value
    api_version, kind = type_meta.get(1, ""), type_meta.get(2, "")
    if (api_version, kind) not in _DECODABLE:
        raise KubeError(415, f"the media type {PROTOBUF!r} is not supported for {kind or 'this'}"
                        " body; send application/json")  # fmt: skip
    document: dict[str, Any] = {"apiVersion": api_version, "kind": kind}
    readers = _BODIES.get(kind, {})
    for number, value in _fields(raw):
        if number == 1 and isinstance(value, bytes):
            document["metadata"] = _object_meta(value)
        elif number in readers and isinstance(value, bytes):
            key, read = readers[number]
            document[key] = read(value)
    return document
