"""kubectl's protobuf body for a Namespace is read; anything else is refused cleanly."""

from __future__ import annotations

import pytest

from kube.protobuf import decode_protobuf
from kube.status import KubeError


def _field(number: int, payload: bytes) -> bytes:
    return bytes([(number << 3) | 2, len(payload)]) + payload


def _unknown(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = _field(1, api_version.encode()) + _field(2, kind.encode())
    return b"k8s\x00" + _field(1, type_meta) + _field(2, raw)


def test_a_namespace_with_labels_decodes_as_its_json() -> None:
    label = _field(1, b"team") + _field(2, b"ml")
    meta = _field(1, b"team-a") + _field(11, label)
    assert decode_protobuf(_unknown("v1", "Namespace", _field(1, meta))) == {
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "team-a", "labels": {"team": "ml"}},
    }  # fmt: skip


def test_another_kind_is_415_and_a_truncated_body_400() -> None:
    with pytest.raises(KubeError) as other:
        decode_protobuf(_unknown("v1", "Pod", b""))
    assert other.value.code == 415
    with pytest.raises(KubeError) as truncated:
        decode_protobuf(b"k8s\x00" + bytes([0x0A, 0x7F]) + b"abc")
    assert truncated.value.code == 400
    with pytest.raises(KubeError) as bare:
        decode_protobuf(b"not protobuf")
    assert bare.value.code == 400
