"""ConfigMap manifests (v1): ``data``, ``binaryData`` and ``immutable`` at the top level.

Validated as kube-apiserver does: keys are config keys (``[-._a-zA-Z0-9]+``, at most 253
characters, not ``.`` or ``..``), a key is in ``data`` or ``binaryData`` but not both,
``binaryData`` values are base64, and an immutable ConfigMap keeps its data and stays so.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, ClassVar

from apis.wire import Fields, Manifest
from core.models import ConfigMap
from kube.admission_causes import Causes
from kube.manifest_kinds import Kind, Loaded

__all__ = ["ConfigMapKind", "config_key_error"]

_CONFIG_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
_IMMUTABLE = "field is immutable when `immutable` is set"


def config_key_error(key: str) -> str:
    """Return why ``key`` is not a valid config key (``""`` when it is), in Kubernetes' words."""
    if len(key) > 253:
        return "must be no more than 253 characters"
    if not _CONFIG_KEY.match(key):
        return (
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
            "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
            "'[-._a-zA-Z0-9]+')"
        )
    if key in (".", ".."):
        return f"must not be '{key}'"
    return ""


class ConfigMapKind(Kind):
    """``v1`` ConfigMap."""

    api_version = "v1"
    kind = "ConfigMap"
    resource = "configmap"
    model = ConfigMap
    spec_fields = ("data", "binary_data", "immutable")
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name"}

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        config: ConfigMap = loaded.instance
        config.data = doc.string_map("data")
        config.binary_data = doc.string_map("binaryData")
        immutable = doc.raw("immutable")
        if immutable is not None and not isinstance(immutable, bool):
            raise doc.error("immutable", "expected true or false")
        config.immutable = immutable
        for field, values in (("data", config.data), ("binaryData", config.binary_data)):
            for key, value in values.items():
                if error := config_key_error(key):
                    raise doc.error(f"{field}[{key}]", f"Invalid value: {key!r}: {error}")
                if field == "binaryData":
                    try:
                        base64.b64decode(value, validate=True)
                    except (binascii.Error, ValueError) as exc:
                        raise doc.error(f"binaryData[{key}]", "expected base64 data") from exc
        for key in config.data.keys() & config.binary_data.keys():
            raise doc.error(f"data[{key}]", f"Invalid value: {key!r}: duplicate of key {key!r}")

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Refuse a change to an immutable ConfigMap's data, or making it mutable again."""
        if existing is None or not existing.immutable:
            return
        config: ConfigMap = loaded.instance
        causes = Causes()
        if config.data != existing.data:
            causes.forbidden("data", _IMMUTABLE)
        if config.binary_data != existing.binary_data:
            causes.forbidden("binaryData", _IMMUTABLE)
        if not config.immutable:
            causes.forbidden("immutable", "field is immutable when `immutable` is set")
        causes.raise_if_any(kind="ConfigMap", name=config.name)

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        config: ConfigMap = instance
        body: Manifest = {}
        if config.data:
            body["data"] = dict(sorted(config.data.items()))
        if config.binary_data:
            body["binaryData"] = dict(sorted(config.binary_data.items()))
        if config.immutable is not None:
            body["immutable"] = config.immutable
        return body
