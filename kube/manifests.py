"""Manifests in and out, for every kind the apps registered (YAML/JSON ⇄ models).

``load_manifest`` picks the kind from ``apiVersion``/``kind`` and returns an
unsaved object; ``dump_manifest`` writes any stored or loaded object back in
Volcano's spelling; ``apply_manifests`` creates or updates a batch of them in
one transaction, in dependency order (classes and queues before jobs), and
returns kubectl's lines (``job.batch.volcano.sh/test-job created``).

Which kinds a manifest may hold, and their order, come from the registry: each kind's
``Entry.apply_order`` and the manifests registered beside them (the scheduler's
configuration as Volcano's ConfigMap), with the loaders of files that are not YAML
(``.conf``). Apply hooks run before a bundle is written (a bundle's namespaces are created).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from django.db import transaction

from apis.errors import ManifestError
from apis.safe_yaml import YamlLimitError, load_all
from apis.wire import Manifest, type_name
from kube import registry
from kube.manifest_kinds import Kind, Loaded

__all__ = [
    "Loaded",
    "apply_manifests",
    "dump_manifest",
    "kind_of",
    "load_manifest",
    "read_manifests",
]

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


def load_manifest(data: object) -> Loaded:
    """Return the manifest ``data`` as an unsaved object; ``ManifestError`` names the bad field."""
    if not isinstance(data, dict):
        raise ManifestError("manifest", f"expected an object, got {type_name(data)}")
    api_version, kind = data.get("apiVersion"), data.get("kind")
    kinds = registry.manifest_kinds()
    handler = next(
        (k for k in kinds if (k.api_version, k.kind) == (str(api_version), str(kind))), None
    )
    if handler is None:
        known = ", ".join(f"{k.kind} ({k.api_version})" for k in kinds)
        raise ManifestError("kind", f"unsupported kind {kind!r} of {api_version!r}; known: {known}")
    return handler.load(data)


def kind_of(instance: Any) -> Kind:
    """Return the manifest kind that reads and writes rows of ``instance``'s model.

    ``KeyError`` for a model no manifest file may hold (Secrets are served, not applied).
    """
    for kind in registry.manifest_kinds():
        if kind.model is type(instance):
            return kind
    raise KeyError(type(instance))


def dump_manifest(instance: Any, children: list[Any] | None = None) -> Manifest:
    """Return the manifest of ``instance`` (``children``: a loaded job's unsaved tasks)."""
    return kind_of(instance).dump(instance, children)


def dump_loaded(loaded: Loaded) -> Manifest:
    """Return the manifest of a loaded (possibly unsaved) object."""
    return loaded.kind.dump(loaded.instance, loaded.children)


def read_manifests(path: Path) -> list[tuple[str, Loaded]]:
    """Return every object in ``path`` (a file or a directory, searched recursively).

    YAML files may hold several documents; files with a registered loader (``.conf``:
    scheduler configurations) are read by it. Each object comes with ``source`` (``file`` or
    ``file#2``) for messages; the first bad one raises ``ManifestError`` prefixed with it.
    """
    loaders = registry.file_loaders()
    files = (
        sorted(
            p for p in path.rglob("*") if p.is_file() and p.suffix in (*MANIFEST_SUFFIXES, *loaders)
        )
        if path.is_dir()
        else [path]
    )
    loaded: list[tuple[str, Loaded]] = []
    for file in files:
        text = file.read_text()
        if (loader := loaders.get(file.suffix)) is not None:
            try:
                loaded.append((str(file), loader(text)))
            except ManifestError as exc:
                raise ManifestError(f"{file}: {exc.field}", exc.message) from exc
            continue
        try:
            documents = load_all(text)
        except YamlLimitError as exc:
            where = f"{file}: {exc.field}" if exc.field else str(file)
            raise ManifestError(where, exc.message) from exc
        except yaml.YAMLError as exc:
            raise ManifestError(str(file), f"not valid YAML: {exc}") from exc
        for number, document in enumerate(_flatten(documents), start=1):
            source = str(file) if len(documents) == 1 else f"{file}#{number}"
            try:
                loaded.append((source, load_manifest(document)))
            except ManifestError as exc:
                raise ManifestError(f"{source}: {exc.field}", exc.message) from exc
    return loaded


def _flatten(documents: Iterable[Any]) -> Iterable[Any]:
    """Yield documents, unpacking ``kind: List`` (what ``kubectl get -o yaml`` prints)."""
    for document in documents:
        if isinstance(document, dict) and document.get("kind") == "List":
            yield from document.get("items") or []
        else:
            yield document


def apply_manifests(objects: Iterable[tuple[str, Loaded]]) -> list[str]:
    """Create or update every ``(source, object)`` in one transaction; return kubectl's lines.

    Any error (``ManifestError`` naming the source and the field) rolls back the whole batch.
    """
    order = {kind.kind: position for position, kind in enumerate(registry.manifest_kinds())}
    objects = list(objects)
    lines = []
    with transaction.atomic():
        # What the bundle needs first (core: each object's namespace exists before it).
        for hook in registry.apply_hooks():
            lines.extend(hook([loaded for _, loaded in objects]))
        for source, loaded in sorted(objects, key=lambda item: order[item[1].kind.kind]):
            try:
                outcome = loaded.kind.apply(loaded)
            except ManifestError as exc:
                raise ManifestError(f"{source}: {exc.field}", exc.message) from exc
            lines.append(f"{loaded.display_name} {outcome}")
    return lines
