"""Request bodies: JSON or YAML objects, merge patches (RFC 7386) and JSON patches (RFC 6902).

A body that does not parse is a 400 whose message names the line (YAML) or the
line and column (JSON), so a manifest posted with ``curl --data-binary`` shows
where it broke. Patches apply to the object's current manifest; the result is
then handled exactly like a replace.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import yaml
from django.conf import settings

from apis.safe_yaml import YamlLimitError, load_all, load_json
from kube.protobuf import PROTOBUF, decode_protobuf
from kube.status import Cause, KubeError

__all__ = [
    "APPLY_PATCH",
    "JSON_PATCH",
    "MERGE_PATCH",
    "apply_json_patch",
    "apply_merge_patch",
    "limit_error",
    "max_body_bytes",
    "media_type",
    "parse_document",
]

APPLY_PATCH = "application/apply-patch+yaml"  # server-side apply: the whole applied config
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
# Strategic merge is defined for built-in types only; for ours it is a merge patch, as kubectl
# falls back to for custom resources.
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml")
JSON_TYPES = ("application/json", "")


def media_type(content_type: str | None) -> str:
    """Return the bare media type of a ``Content-Type`` header (parameters dropped)."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def max_body_bytes() -> int:
    """Return the largest request body the API reads (kube-apiserver's 3 MiB by default)."""
    return int(getattr(settings, "VOLCANO_MAX_BODY_BYTES", 3 * 1024 * 1024))


def limit_error(exc: YamlLimitError) -> KubeError:
    """Return the ``Status`` of a document refused by the parsing limits."""
    causes = [Cause(exc.field, exc.message)] if exc.field else []
    return KubeError(exc.code, exc.message, causes=causes)


def parse_document(body: bytes, content_type: str | None) -> Any:
    """Return the decoded body; ``KubeError`` 400 naming the line, 415 for other media types.

    Bodies over ``max_body_bytes`` are 413; YAML aliases that would expand past the limits,
    nesting past them, integers past 64 bits and infinite floats are refused before anything
    walks the document (``apis.safe_yaml``).
    """
    if len(body) > max_body_bytes():
        raise KubeError(413, f"the request body is larger than {max_body_bytes()} bytes")
    kind = media_type(content_type)
    if kind == PROTOBUF:  # kubectl's typed clients (create namespace)
        return decode_protobuf(body)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KubeError(400, f"the body is not UTF-8: {exc}") from exc
    if not text.strip():
        raise KubeError(400, "the request body is empty")
    if kind in YAML_TYPES or kind == APPLY_PATCH:
        return _parse_yaml(text)
    if kind in (*JSON_TYPES, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH):
        try:
            return load_json(text)
        except YamlLimitError as exc:
            raise limit_error(exc) from exc
        except json.JSONDecodeError as exc:
            message = f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
            raise KubeError(400, f"the body is not valid JSON: {message}") from exc
    raise KubeError(415, f"the media type {kind!r} is not supported")


def _parse_yaml(text: str) -> Any:
    try:
        documents = load_all(text)
    except YamlLimitError as exc:
        raise limit_error(exc) from exc
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown line"
        problem = exc.problem or exc.context or "malformed"
        raise KubeError(400, f"the body is not valid YAML: {where}: {problem}") from exc
    except yaml.YAMLError as exc:
        raise KubeError(400, f"the body is not valid YAML: {exc}") from exc
    if len(documents) != 1:
        raise KubeError(400, f"expected one YAML document, got {len(documents)}")
    return _json_safe(documents[0])


def _json_safe(value: Any) -> Any:
    """Return YAML data as JSON data (dates and other scalars become strings)."""
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def apply_merge_patch(target: Any, patch: Any) -> Any:
    """Return ``target`` with the RFC 7386 merge ``patch`` applied (null deletes a key)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply_merge_patch(result.get(key), value)
    return result


def apply_json_patch(target: Any, patch: Any) -> Any:
    """Return ``target`` with the RFC 6902 ``patch`` applied; ``KubeError`` 422 when it can't."""
    if not isinstance(patch, list):
        raise KubeError(400, "a JSON patch must be an array of operations")
    document = copy.deepcopy(target)
    for index, operation in enumerate(patch):
        if not isinstance(operation, dict) or not isinstance(operation.get("op"), str):
            raise KubeError(400, f"patch[{index}]: an operation needs an 'op'")
        document = _apply_operation(document, operation, index)
    return document


def _pointer(path: Any, index: int) -> list[str]:
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise KubeError(400, f"patch[{index}]: invalid JSON pointer {path!r}")
    return [part.replace("~1", "/").replace("~0", "~") for part in path.split("/")[1:]]


def _get(document: Any, parts: list[str], index: int) -> Any:
    for part in parts:
        document = _child(document, part, index)
    return document


def _child(container: Any, part: str, index: int) -> Any:
    if isinstance(container, dict) and part in container:
        return container[part]
    if isinstance(container, list) and part.isdigit() and int(part) < len(container):
        return container[int(part)]
    raise KubeError(422, f"patch[{index}]: path element {part!r} does not exist")


def _apply_operation(document: Any, operation: dict[str, Any], index: int) -> Any:
    op = operation["op"]
    parts = _pointer(operation.get("path"), index)
    if op == "test":
        if _get(document, parts, index) != operation.get("value"):
            raise KubeError(422, f"patch[{index}]: test failed at {operation.get('path')}")
        return document
    if op in ("move", "copy"):
        source = _pointer(operation.get("from"), index)
        value = copy.deepcopy(_get(document, source, index))
        if op == "move":
            document = _remove(document, source, index)
        return _add(document, parts, value, index)
    if op == "remove":
        return _remove(document, parts, index)
    if "value" not in operation:
        raise KubeError(400, f"patch[{index}]: {op!r} needs a 'value'")
    value = copy.deepcopy(operation["value"])
    if op == "add":
        return _add(document, parts, value, index)
    if op == "replace":
        _get(document, parts, index)  # must exist
        document = _remove(document, parts, index)
        return _add(document, parts, value, index)
    raise KubeError(400, f"patch[{index}]: unknown op {op!r}")


def _add(document: Any, parts: list[str], value: Any, index: int) -> Any:
    if not parts:
        return value
    parent = _get(document, parts[:-1], index)
    last = parts[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        position = len(parent) if last == "-" else _list_index(last, len(parent) + 1, index)
        parent.insert(position, value)
    else:
        raise KubeError(422, f"patch[{index}]: cannot add below a scalar")
    return document


def _remove(document: Any, parts: list[str], index: int) -> Any:
    if not parts:
        return None
    parent = _get(document, parts[:-1], index)
    last = parts[-1]
    if isinstance(parent, dict) and last in parent:
        del parent[last]
    elif isinstance(parent, list):
        del parent[_list_index(last, len(parent), index)]
    else:
        raise KubeError(422, f"patch[{index}]: path element {last!r} does not exist")
    return document


def _list_index(part: str, size: int, index: int) -> int:
    if not part.isdigit() or int(part) >= size:
        raise KubeError(422, f"patch[{index}]: index {part!r} is out of range")
    return int(part)
