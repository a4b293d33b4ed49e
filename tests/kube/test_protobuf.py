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


def _varint(number: int, value: int) -> bytes:
    encoded, value = bytearray(), value & ((1 << 64) - 1)
    while True:
        byte, value = value & 0x7F, value >> 7
        encoded.append(byte | (0x80 if value else 0))
        if not value:
            return bytes([number << 3]) + bytes(encoded)


def test_kubectl_create_quota_and_pdb_bodies_decode_as_their_json() -> None:
    hard = _field(1, _field(1, b"requests.cpu") + _field(2, _field(1, b"4")))
    quota = _field(1, _field(1, b"q1")) + _field(2, hard)
    selector = _field(1, _field(1, b"app") + _field(2, b"web"))
    min_available = _varint(1, 1) + _varint(2, 0) + _field(3, b"50%")
    budget = _field(1, _field(1, b"web")) + _field(
        2, _field(1, min_available) + _field(2, selector)
    )
    eviction = _field(1, _field(1, b"web-0")) + _field(2, _varint(1, 30))

    assert decode_protobuf(_unknown("v1", "ResourceQuota", quota)) == {
        "apiVersion": "v1", "kind": "ResourceQuota",
        "metadata": {"name": "q1"}, "spec": {"hard": {"requests.cpu": "4"}},
    }  # fmt: skip
    assert decode_protobuf(_unknown("policy/v1", "PodDisruptionBudget", budget)) == {
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
        "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}},
    }  # fmt: skip
    assert decode_protobuf(_unknown("policy/v1", "Eviction", eviction))["deleteOptions"] == {
        "gracePeriodSeconds": 30
    }
    negative = _field(2, _field(3, _varint(1, 0) + _varint(2, -1)))
    decoded = decode_protobuf(_unknown("policy/v1", "PodDisruptionBudget", negative))
    assert decoded["spec"] == {"maxUnavailable": -1}
