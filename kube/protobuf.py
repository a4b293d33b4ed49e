"""The few Kubernetes protobuf bodies kubectl sends: ``kubectl create namespace``.

kubectl's typed clients send built-in kinds as ``application/vnd.kubernetes.protobuf``: the
envelope ``k8s\\x00`` then a ``runtime.Unknown`` (typeMeta, raw) whose ``raw`` is the object.
Only what those commands send is decoded (a Namespace's ObjectMeta: name, generateName,
labels, annotations); anything else stays a 415. The decoder reads protobuf's wire format
directly (varints and length-delimited fields), bounded by the body limit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kube.status import KubeError

__all__ = ["PROTOBUF", "decode_protobuf"]

PROTOBUF = "application/vnd.kubernetes.protobuf"
_MAGIC = b"k8s\x00"
_DECODABLE = {("v1", "Namespace")}


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


def decode_protobuf(body: bytes) -> dict[str, Any]:
    """Return the JSON form of a protobuf-encoded Namespace; 415 for other kinds."""
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
    for number, value in _fields(raw):
        if number == 1 and isinstance(value, bytes):
            document["metadata"] = _object_meta(value)
    return document
