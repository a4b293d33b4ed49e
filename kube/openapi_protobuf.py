"""The OpenAPI v2 document as gnostic's ``openapi.v2.Document`` protobuf, which kubectl reads.

kubectl (client-go's discovery) asks ``/openapi/v2`` with
``Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`` and nothing else, and
decodes the answer as that message: for client-side validation, ``kubectl explain
--output=plaintext-openapiv2`` and the patch metadata of ``apply``, ``edit`` and ``diff``.
kube-apiserver turns its JSON document into the message (kube-openapi's ``ToProtoBinary``,
through gnostic's ``ParseDocument``); this module does the same for the subset of Swagger 2.0
our documents use, hand-encoded on the wire (as ``kube.protobuf`` decodes kubectl's bodies).

Field numbers are gnostic's ``openapiv2/OpenAPIv2.proto``. A key outside that subset raises
``ValueError`` (gnostic refuses an unknown property too), so a schema that grows a construct
this encoder lacks fails its test rather than reaching kubectl half-encoded. Values a
``google.protobuf.Any`` holds (defaults, enums, examples, ``x-`` extensions) are kept as their
YAML text, as gnostic keeps them; JSON is YAML, which is what kubectl parses them with.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from typing import Any

__all__ = ["encode_document"]

# -- wire -----------------------------------------------------------------------------------


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # a negative int64 is its two's complement, ten bytes long
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint((number << 3) | wire)


def _bytes(number: int, payload: bytes) -> bytes:
    return _key(number, 2) + _varint(len(payload)) + payload


def _string(number: int, value: Any) -> bytes:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return _bytes(number, value.encode()) if value else b""


def _bool(number: int, value: Any) -> bytes:
    if not isinstance(value, bool):
        raise ValueError(f"expected a boolean, got {value!r}")
    return _key(number, 0) + _varint(1) if value else b""


def _int64(number: int, value: Any) -> bytes:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    return _key(number, 0) + _varint(value) if value else b""


def _double(number: int, value: Any) -> bytes:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number, got {value!r}")
    return _key(number, 1) + struct.pack("<d", float(value)) if value else b""


def _strings(number: int, value: Any) -> bytes:
    if not isinstance(value, list):
        raise ValueError(f"expected a list of strings, got {value!r}")
    return b"".join(_bytes(number, _checked_str(item).encode()) for item in value)


def _checked_str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value


def _any(value: Any) -> bytes:
    """Return ``openapi.v2.Any``: the value's YAML (as JSON, YAML's subset) in field 2."""
    return _string(2, json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def _named_any(name: str, value: Any) -> bytes:
    return _string(1, name) + _bytes(2, _any(value))


# -- messages -------------------------------------------------------------------------------

Encoder = Callable[[int, Any], bytes]


def _message(builder: Callable[[Any], bytes]) -> Encoder:
    """Return an encoder of a field that holds the message ``builder`` makes."""
    return lambda number, value: _bytes(number, builder(value))


def _repeated(builder: Callable[[Any], bytes]) -> Encoder:
    def encode(number: int, value: Any) -> bytes:
        if not isinstance(value, list):
            raise ValueError(f"expected a list, got {value!r}")
        return b"".join(_bytes(number, builder(item)) for item in value)

    return encode


def _any_field(number: int, value: Any) -> bytes:
    return _bytes(number, _any(value))


def _anys(number: int, value: Any) -> bytes:
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {value!r}")
    return b"".join(_bytes(number, _any(item)) for item in value)


def _object(
    fields: dict[str, tuple[int, Encoder]], extensions: int | None, what: str
) -> Callable[[Any], bytes]:
    """Return a builder of a message whose JSON keys are ``fields`` (``x-`` keys go to
    ``extensions``, the message's repeated ``NamedAny vendor_extension``)."""

    def build(value: Any) -> bytes:
        if not isinstance(value, dict):
            raise ValueError(f"{what}: expected an object, got {value!r}")
        out = bytearray()
        for key, item in value.items():
            if key in fields:
                number, encode = fields[key]
                try:
                    out += encode(number, item)
                except ValueError as exc:
                    raise ValueError(f"{what}.{key}: {exc}") from None
            elif key.startswith("x-") and extensions is not None:
                out += _bytes(extensions, _named_any(key, item))
            else:
                raise ValueError(f"{what}: {key!r} is not a property gnostic knows")
        return bytes(out)

    return build


def _named_map(
    number: int, value_builder: Callable[[Any], bytes], extensions: int | None, what: str
) -> Callable[[Any], bytes]:
    """Return a builder of a map message: each key a ``Named*`` entry in field ``number``."""

    def build(value: Any) -> bytes:
        if not isinstance(value, dict):
            raise ValueError(f"{what}: expected an object, got {value!r}")
        out = bytearray()
        for key, item in value.items():
            if key.startswith("x-") and extensions is not None:
                out += _bytes(extensions, _named_any(key, item))
            else:
                out += _bytes(number, _string(1, key) + _bytes(2, value_builder(item)))
        return bytes(out)

    return build


def _schema(value: Any) -> bytes:
    return _SCHEMA(value)


def _additional_properties(value: Any) -> bytes:
    """``AdditionalPropertiesItem``: a schema (field 1) or a boolean (field 2)."""
    if isinstance(value, bool):
        return _key(2, 0) + _varint(int(value))
    return _bytes(1, _schema(value))


def _type_item(value: Any) -> bytes:
    """``TypeItem``: gnostic takes one type or a list of them."""
    return _strings(1, value if isinstance(value, list) else [value])


def _items_item(value: Any) -> bytes:
    """``ItemsItem``: one schema or a list of them, each in field 1."""
    schemas = value if isinstance(value, list) else [value]
    return b"".join(_bytes(1, _schema(item)) for item in schemas)


_SCHEMA = _object(
    {
        "$ref": (1, _string),
        "format": (2, _string),
        "title": (3, _string),
        "description": (4, _string),
        "default": (5, _any_field),
        "multipleOf": (6, _double),
        "maximum": (7, _double),
        "exclusiveMaximum": (8, _bool),
        "minimum": (9, _double),
        "exclusiveMinimum": (10, _bool),
        "maxLength": (11, _int64),
        "minLength": (12, _int64),
        "pattern": (13, _string),
        "maxItems": (14, _int64),
        "minItems": (15, _int64),
        "uniqueItems": (16, _bool),
        "maxProperties": (17, _int64),
        "minProperties": (18, _int64),
        "required": (19, _strings),
        "enum": (20, _anys),
        "additionalProperties": (21, _message(_additional_properties)),
        "type": (22, _message(_type_item)),
        "items": (23, _message(_items_item)),
        "allOf": (24, _repeated(_schema)),
        "properties": (25, _message(_named_map(1, _schema, None, "properties"))),
        "discriminator": (26, _string),
        "readOnly": (27, _bool),
        "example": (30, _any_field),
    },
    31,
    "schema",
)

_JSON_REFERENCE = _object({"$ref": (1, _string), "description": (2, _string)}, None, "reference")

_NON_BODY_COMMON: dict[str, tuple[int, Encoder]] = {
    "required": (1, _bool),
    "in": (2, _string),
    "description": (3, _string),
    "name": (4, _string),
}
# QueryParameterSubSchema (allowEmptyValue is 5, so the rest are one further than a path's).
_QUERY_PARAMETER = _object(
    {
        **_NON_BODY_COMMON,
        "allowEmptyValue": (5, _bool),
        "type": (6, _string),
        "format": (7, _string),
        "collectionFormat": (9, _string),
        "default": (10, _any_field),
        "pattern": (17, _string),
        "uniqueItems": (20, _bool),
        "enum": (21, _anys),
    },
    23,
    "query parameter",
)
_PATH_PARAMETER = _object(
    {
        **_NON_BODY_COMMON,
        "type": (5, _string),
        "format": (6, _string),
        "collectionFormat": (8, _string),
        "default": (9, _any_field),
        "pattern": (16, _string),
        "uniqueItems": (19, _bool),
        "enum": (20, _anys),
    },
    22,
    "path parameter",
)
_BODY_PARAMETER = _object(
    {
        "description": (1, _string),
        "name": (2, _string),
        "in": (3, _string),
        "required": (4, _bool),
        "schema": (5, _message(_schema)),
    },
    6,
    "body parameter",
)


def _parameters_item(value: Any) -> bytes:
    """``ParametersItem``: a reference (field 2) or a ``Parameter`` (field 1): a body one
    (``Parameter`` field 1) or a non-body one (field 2: query 3, path 4 of ``NonBodyParameter``).
    """
    if isinstance(value, dict) and "$ref" in value:
        return _bytes(2, _JSON_REFERENCE(value))
    where = value.get("in") if isinstance(value, dict) else None
    if where == "body":
        return _bytes(1, _bytes(1, _BODY_PARAMETER(value)))
    if where == "query":
        return _bytes(1, _bytes(2, _bytes(3, _QUERY_PARAMETER(value))))
    if where == "path":
        return _bytes(1, _bytes(2, _bytes(4, _PATH_PARAMETER(value))))
    raise ValueError(f"parameter: 'in' {where!r} is not one this encoder knows")


_RESPONSE = _object(
    {
        "description": (1, _string),
        # SchemaItem: a schema in field 1.
        "schema": (2, _message(lambda value: _bytes(1, _schema(value)))),
    },
    5,
    "response",
)


def _response_value(value: Any) -> bytes:
    """``ResponseValue``: a ``Response`` (field 1) or a reference (field 2)."""
    if isinstance(value, dict) and "$ref" in value:
        return _bytes(2, _JSON_REFERENCE(value))
    return _bytes(1, _RESPONSE(value))


_OPERATION = _object(
    {
        "tags": (1, _strings),
        "summary": (2, _string),
        "description": (3, _string),
        "operationId": (5, _string),
        "produces": (6, _strings),
        "consumes": (7, _strings),
        "parameters": (8, _repeated(_parameters_item)),
        "responses": (9, _message(_named_map(1, _response_value, 2, "responses"))),
        "schemes": (10, _strings),
        "deprecated": (11, _bool),
    },
    13,
    "operation",
)
_PATH_ITEM = _object(
    {
        "$ref": (1, _string),
        "get": (2, _message(_OPERATION)),
        "put": (3, _message(_OPERATION)),
        "post": (4, _message(_OPERATION)),
        "delete": (5, _message(_OPERATION)),
        "options": (6, _message(_OPERATION)),
        "head": (7, _message(_OPERATION)),
        "patch": (8, _message(_OPERATION)),
        "parameters": (9, _repeated(_parameters_item)),
    },
    10,
    "path item",
)
_INFO = _object(
    {"title": (1, _string), "version": (2, _string), "description": (3, _string)}, 7, "info"
)
_DOCUMENT = _object(
    {
        "swagger": (1, _string),
        "info": (2, _message(_INFO)),
        "host": (3, _string),
        "basePath": (4, _string),
        "schemes": (5, _strings),
        "consumes": (6, _strings),
        "produces": (7, _strings),
        # Paths: its entries are field 2 (field 1 holds its extensions).
        "paths": (8, _message(_named_map(2, _PATH_ITEM, 1, "paths"))),
        "definitions": (9, _message(_named_map(1, _schema, None, "definitions"))),
    },
    16,
    "document",
)


def encode_document(document: dict[str, Any]) -> bytes:
    """Return the Swagger 2.0 ``document`` as a serialized ``openapi.v2.Document``."""
    return _DOCUMENT(document)
