"""``vcctl jobtemplate`` and ``vcctl jobflow``: create, list, get, describe and delete, as
Volcano's vcctl (``pkg/cli/jobtemplate``, ``pkg/cli/jobflow``) does them.

The flags, words and columns are Volcano's: ``-f/--file``, ``-N/--name``, ``-n/--namespace``
(``default``), ``-o/--format`` (``yaml``) for describe; ``create`` and ``delete -f`` take a
file of several documents and say ``Created JobFlow: <namespace>/<name>`` or
``Failed to create JobFlow: <error>`` for each; ``list`` and ``get`` print Name, Namespace
(and Phase and Age for flows) in columns four spaces apart; ``describe`` prints the objects.
"""

from __future__ import annotations

import argparse
import urllib.parse
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from apis.safe_yaml import YamlLimitError, load_all
from vcctl.base import CliError, Context
from vcctl.client import ApiError
from vcctl.printers import human_duration, parse_time, render

__all__ = ["JOBFLOW", "JOBTEMPLATE", "FlowKind", "flow_create", "flow_delete", "flow_describe",
           "flow_get", "flow_list"]  # fmt: skip

GROUP_VERSION = "flow.volcano.sh/v1alpha1"
_SPACING = 4


@dataclass(frozen=True, slots=True)
class FlowKind:
    """One of the two kinds: its name, plural and how its table reads."""

    kind: str
    plural: str
    words: str  # how Volcano's messages name it ("jobflow", "job template")
    phase_columns: bool  # Phase and Age after Name and Namespace


JOBFLOW = FlowKind("JobFlow", "jobflows", "jobflow", phase_columns=True)
JOBTEMPLATE = FlowKind("JobTemplate", "jobtemplates", "job template", phase_columns=False)


def _path(kind: FlowKind, namespace: str | None, name: str = "") -> str:
    if namespace is None:
        return f"/apis/{GROUP_VERSION}/{kind.plural}"
    path = (
        f"/apis/{GROUP_VERSION}/namespaces/{urllib.parse.quote(namespace, safe='')}/{kind.plural}"
    )
    return f"{path}/{urllib.parse.quote(name, safe='')}" if name else path


def _documents(filename: str) -> list[dict[str, Any]]:
    try:
        documents = load_all(Path(filename).read_text())
    except OSError as error:
        raise CliError(f"failed to read file, err: {error}") from None
    except (YamlLimitError, yaml.YAMLError) as error:
        raise CliError(f"failed to unmarshal file {filename}: {error}") from None
    return [d for d in documents if d is not None]


def _row(kind: FlowKind, obj: dict[str, Any], now: datetime) -> list[str]:
    metadata = obj.get("metadata") or {}
    row = [str(metadata.get("name", "")), str(metadata.get("namespace", ""))]
    if kind.phase_columns:
        created = parse_time(metadata.get("creationTimestamp"))
        phase = (((obj.get("status") or {}).get("state") or {}).get("phase")) or ""
        row += [str(phase), human_duration(now - created) if created else "<unknown>"]
    return row


def table(kind: FlowKind, objects: list[dict[str, Any]], now: datetime) -> str:
    """Return Volcano's table of ``objects``: each column as wide as its widest cell plus four."""
    header = ["Name", "Namespace", "Phase", "Age"] if kind.phase_columns else ["Name", "Namespace"]
    rows = [header, *(_row(kind, obj, now) for obj in objects)]
    widths = [max(len(r[i]) for r in rows) + _SPACING for i in range(len(header))]
    return "".join(
        "".join(f"{cell:<{width}}" for cell, width in zip(row, widths, strict=True)) + "\n"
        for row in rows
    )


def flow_create(args: argparse.Namespace, ctx: Context, kind: FlowKind) -> int:
    """Create every document of ``-f``; say ``Created <Kind>: ns/name`` or why not, for each."""
    if not args.file:
        raise CliError(f"the path to the YAML file containing the {kind.words} is mandatory (-f)")
    for document in _documents(args.file):
        metadata = document.setdefault("metadata", {})
        namespace = metadata.get("namespace") or "default"
        metadata["namespace"] = namespace
        document.setdefault("apiVersion", GROUP_VERSION)
        document.setdefault("kind", kind.kind)
        if document.get("kind") != kind.kind:
            ctx.stdout.write(f"Failed to create {kind.kind}: {metadata.get('name', '')} is a "
                             f"{document.get('kind')}, not a {kind.kind}\n")  # fmt: skip
            continue
        try:
            ctx.client.create(_path(kind, namespace), document)
        except ApiError as error:
            ctx.stdout.write(f"Failed to create {kind.kind}: {error.message}\n")
            continue
        ctx.stdout.write(f"Created {kind.kind}: {namespace}/{metadata.get('name', '')}\n")
    return 0


def flow_list(args: argparse.Namespace, ctx: Context, kind: FlowKind) -> int:
    """Print the objects of a namespace (every namespace with ``--all-namespaces``)."""
    namespace = None if getattr(args, "all_namespaces", False) else args.namespace
    items = ctx.client.list_all(_path(kind, namespace)).get("items") or []
    if not items:
        ctx.stdout.write("No resources found\n")
        return 0
    ctx.stdout.write(table(kind, items, datetime.now(UTC)))
    return 0


def flow_get(args: argparse.Namespace, ctx: Context, kind: FlowKind) -> int:
    """Print one object's row."""
    if not args.name:
        raise CliError(f"name is mandatory to get the particular {kind.words} details")
    obj = ctx.client.get(_path(kind, args.namespace, args.name))
    ctx.stdout.write(table(kind, [obj], datetime.now(UTC)))
    return 0


def flow_describe(args: argparse.Namespace, ctx: Context, kind: FlowKind) -> int:
    """Print one object (or every one of the namespace) as YAML or JSON, without managedFields."""
    if args.format not in ("yaml", "json"):
        ctx.stdout.write(f"Unsupported format: {args.format}")
        return 0
    if args.name:
        objects = [ctx.client.get(_path(kind, args.namespace, args.name))]
    else:
        objects = ctx.client.list_all(_path(kind, args.namespace)).get("items") or []
    shown = []
    for obj in objects:
        (obj.get("metadata") or {}).pop("managedFields", None)
        obj.setdefault("apiVersion", GROUP_VERSION)
        obj.setdefault("kind", kind.kind)
        shown.append(render(obj, args.format))
    ctx.stdout.write("\n\n".join(shown))
    return 0


def flow_delete(args: argparse.Namespace, ctx: Context, kind: FlowKind) -> int:
    """Delete ``-N`` (or every document of ``-f``); say ``Deleted <Kind>: ns/name``."""
    if args.file:
        for document in _documents(args.file):
            metadata = document.get("metadata") or {}
            namespace, name = metadata.get("namespace") or "default", metadata.get("name", "")
            try:
                ctx.client.delete(_path(kind, namespace, name))
            except ApiError as error:
                ctx.stdout.write(f"Failed to delete {kind.kind}: {error.message}\n")
                continue
            ctx.stdout.write(f"Deleted {kind.kind}: {namespace}/{name}\n")
        return 0
    if not args.name:
        raise CliError(f"{kind.words} name must be specified")
    ctx.client.delete(_path(kind, args.namespace, args.name))
    ctx.stdout.write(f"Deleted {kind.kind}: {args.namespace}/{args.name}\n")
    return 0
