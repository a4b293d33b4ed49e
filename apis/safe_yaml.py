"""Bounded parsing of YAML and JSON that a user sent: one module for every reader.

Why: PyYAML's safe loader is safe against code, not against size. A few hundred bytes of
anchors and aliases ("billion laughs") compose into a small graph that expands
exponentially as soon as anything walks it as a tree (a copy, a JSON encoder, a validator);
a document nested ten thousand levels deep makes recursive code raise ``RecursionError``; an
integer of thousands of digits makes ``int()`` raise ``ValueError``. Each of those took the
server down or answered 500.

So the limits are checked on YAML's composed node graph, before anything is constructed:
the graph is walked once with memoised sizes (an alias counts as many nodes as it expands
to, a cycle is refused), its depth is bounded, and integer scalars are bounded in length.
After construction, ``check_values`` walks the (now bounded) data iteratively and refuses
integers beyond 64 bits and infinite or NaN floats, naming the field. JSON gets the same
value checks and a depth bound. Pure (standard library and PyYAML): the engine's conf
parser uses it too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import yaml

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "YamlLimitError",
    "check_values",
    "load_all",
    "load_json",
    "load_one",
]

# libyaml when present (its parser is a state machine in C, and fast); PyYAML's own otherwise.
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_NODES = 200_000  # expanded nodes in one document (a 3 MiB manifest has far fewer)
MAX_DEPTH = 100  # nesting levels (Kubernetes objects need about 15)
MAX_INT_DIGITS = 20  # int64 has 19 digits, plus a sign
INT64 = 2**63 - 1


class YamlLimitError(ValueError):
    """A document refused: ``code`` 400 (malformed, too big) or 422 (a bad value at ``field``)."""

    def __init__(self, message: str, *, code: int = 400, field: str = "", line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.field = field
        self.line = line


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1 if node.start_mark is not None else 0


def _check_graph(root: yaml.Node, max_nodes: int, max_depth: int) -> yaml.Node | None:
    """Refuse a graph too big (expanded), too deep or cyclic; return a too-long int scalar.

    Iterative post-order with memoised sizes: the walk visits each distinct node once, so
    checking costs what composing did, whatever the aliases would expand to.
    """
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    visiting: set[int] = set()
    long_int: yaml.Node | None = None
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        key = id(node)
        if expanded:
            visiting.discard(key)
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            if size[key] > max_nodes:
                raise YamlLimitError(
                    f"line {_line(node)}: the document would expand to more than {max_nodes} "
                    "nodes (YAML aliases multiply what they refer to)",
                    line=_line(node),
                )
            if depth[key] > max_depth:
                raise YamlLimitError(
                    f"line {_line(node)}: the document nests deeper than {max_depth} levels",
                    line=_line(node),
                )
            continue
        if key in size:
            continue
        if key in visiting:
            raise YamlLimitError(
                f"line {_line(node)}: a YAML alias refers to itself", line=_line(node)
            )
        visiting.add(key)
        if len(visiting) > max_depth:
            raise YamlLimitError(
                f"line {_line(node)}: the document nests deeper than {max_depth} levels",
                line=_line(node),
            )
        if (
            isinstance(node, yaml.ScalarNode)
            and node.tag == "tag:yaml.org,2002:int"
            and len(str(node.value).replace("_", "")) > MAX_INT_DIGITS
        ):
            long_int = long_int or node
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(_children(node)))
    return long_int


def _path_to(root: yaml.Node, target: yaml.Node) -> str:
    """Return the field path of ``target`` below ``root`` (the graph is already bounded)."""
    stack: list[tuple[yaml.Node, str]] = [(root, "")]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(node.value))
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                name = str(getattr(key, "value", "?"))
                stack.append((value, f"{path}.{name}" if path else name))
    return ""


def _check_nesting(text: str, max_depth: int) -> None:
    """Refuse nesting past ``max_depth`` from the event stream, before composing.

    Why first: composing is recursive (one Python or C stack frame per level), so a document
    of a million ``[`` would overflow the stack before ``_check_graph`` could see it; the
    parser that yields events keeps its own stack of states and is safe to run on anything.
    """
    depth = 0
    for event in yaml.parse(text, Loader=_LOADER):
        if isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            depth += 1
            if depth > max_depth:
                line = int(event.start_mark.line) + 1 if event.start_mark is not None else 0
                raise YamlLimitError(
                    f"line {line}: the document nests deeper than {max_depth} levels", line=line
                )
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            depth -= 1


def load_all(text: str, *, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH) -> list[Any]:
    """Return every non-empty document of ``text``, refusing what the limits forbid.

    Raises ``YamlLimitError`` for documents over the limits or holding bad values, and
    ``yaml.YAMLError`` (with its marks) for text that is not YAML.
    """
    _check_nesting(text, max_depth)
    loader = _LOADER(text)
    documents: list[Any] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            long_int = _check_graph(node, max_nodes, max_depth)
            if long_int is not None:
                field = _path_to(node, long_int)
                raise YamlLimitError(
                    f"{field or 'a value'}: an integer of {len(long_int.value)} digits is out of "
                    "range (at most 64 bits)",
                    code=422, field=field, line=_line(long_int),
                )  # fmt: skip
            document = loader.construct_document(node)
            if document is not None:
                documents.append(check_values(document))
    finally:
        loader.dispose()
    return documents


def load_one(text: str, **limits: int) -> Any:
    """Return the only document of ``text`` (None when empty); more than one is an error."""
    documents = load_all(text, **limits)
    if len(documents) > 1:
        raise YamlLimitError(f"expected one YAML document, got {len(documents)}")
    return documents[0] if documents else None


def _refuse_constant(name: str) -> Any:
    raise YamlLimitError(f"{name} is not a number JSON allows", code=422)


class _LongInt:
    """An integer literal too long to convert: ``check_values`` refuses it at its field."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _bounded_int(literal: str) -> int | _LongInt:
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        return _LongInt(len(literal))
    return int(literal)


def load_json(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Return the JSON value of ``text`` within the limits (``json.JSONDecodeError`` if bad)."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_bounded_int)
    except RecursionError as exc:
        raise YamlLimitError(f"the document nests deeper than {max_depth} levels") from exc
    return check_values(value, max_depth=max_depth)


def _walk(value: Any) -> Iterator[tuple[str, Any, int]]:
    stack: list[tuple[str, Any, int]] = [("", value, 1)]
    while stack:
        path, item, level = stack.pop()
        yield path, item, level
        if isinstance(item, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v, level + 1) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", v, level + 1) for i, v in enumerate(item))


def check_values(value: Any, *, max_depth: int = MAX_DEPTH) -> Any:
    """Return ``value`` after refusing deep nesting, integers past 64 bits and inf/NaN floats."""
    for path, item, level in _walk(value):
        if level > max_depth:
            raise YamlLimitError(f"{path}: the document nests deeper than {max_depth} levels")
        if isinstance(item, bool):
            continue
        if isinstance(item, _LongInt):
            raise YamlLimitError(f"{path or 'the value'}: an integer of {item.digits} digits is "
                                 "out of range (at most 64 bits)", code=422, field=path)  # fmt: skip
        if isinstance(item, int) and not -INT64 - 1 <= item <= INT64:
            raise YamlLimitError(f"{path or 'the value'}: the integer is out of range (at most 64 bits)",
                                 code=422, field=path)  # fmt: skip
        if isinstance(item, float) and not math.isfinite(item):
            raise YamlLimitError(f"{path or 'the value'}: {item} is not a finite number",
                                 code=422, field=path)  # fmt: skip
    return value
