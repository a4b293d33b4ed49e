"""The gnostic encoding of Swagger documents, on the wire (kubectl decodes what the server
serves: tests/kube/test_openapi.py)."""

from __future__ import annotations

import struct

import pytest

from kube.openapi_protobuf import encode_document


def test_a_schema_encodes_with_gnostics_field_numbers() -> None:
    document = {
        "swagger": "2.0",
        "definitions": {
            "A": {
                "type": "object",
                "properties": {"n": {"type": "integer", "minimum": -1}},
                "additionalProperties": False,
                "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "A"}],
            }
        },
    }
    encoded = encode_document(document)
    assert encoded.startswith(b"\x0a\x032.0\x4a")  # swagger (1), then definitions (9)
    # n: type (22) a TypeItem of "integer", minimum (9) a double.
    n = b"\xb2\x01\x09\x0a\x07integer" + b"\x49" + struct.pack("<d", -1.0)
    # properties (25): a NamedSchema (1) named "n" (1) holding n (2).
    assert b"\xca\x01\x1c\x0a\x1a\x0a\x01n\x12\x15" + n in encoded
    assert b"\xb2\x01\x08\x0a\x06object" in encoded  # the type "object"
    assert b"\xaa\x01\x02\x10\x00" in encoded  # additionalProperties (21): boolean false
    # An extension: a NamedAny (31) whose Any keeps the value's YAML (as JSON) in field 2.
    extension = b'[{"group":"","version":"v1","kind":"A"}]'
    assert b"x-kubernetes-group-version-kind\x12" + bytes([len(extension) + 2, 0x12]) in encoded
    assert extension in encoded


def test_a_property_gnostic_does_not_know_is_refused() -> None:
    with pytest.raises(ValueError, match=r"schema: 'nullable' is not a property gnostic knows"):
        encode_document({"swagger": "2.0", "definitions": {"A": {"nullable": True}}})
    with pytest.raises(ValueError, match="expected a string"):
        encode_document({"swagger": "2.0", "info": {"title": 3}})
