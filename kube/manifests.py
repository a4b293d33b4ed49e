"""Manifests in and out, for every kind the console stores (YAML/JSON ⇄ models).

``load_manifest`` picks the kind from ``apiVersion``/``kind`` and returns an
unsaved object; ``dump_manifest`` writes any stored or loaded object back in
Volcano's spelling; ``apply_manifests`` creates or updates a batch of them in
one transaction, in dependency order (classes and queues before jobs), and
returns kubectl's lines (``job.batch.volcano.sh/test-job created``).
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
from core.manifests.event import EventKind
from core.manifests.node import NodeKind
from core.manifests.pod import PodKind
from core.manifests.priority_class import PriorityClassKind
from jobs.manifests.command import CommandKind
from jobs.manifests.job import JobKind
from kube.manifest_kinds import Kind, Loaded
from queues.manifests import QueueKind
from queues.manifests.pod_group import PodGroupKind
from scheduler.manifests import SchedulerConfigurationKind, load_conf_text
from training.manifests import MPIJobKind, PyTorchJobKind, TFJobKind

__all__ = [
    "KINDS",
    "Loaded",
    "apply_manifests",
    "dump_manifest",
    "kind_of",
    "load_manifest",
    "read_manifests",
]

# Apply order: what others refer to comes first.
KINDS: tuple[Kind, ...] = (
    PriorityClassKind(),
    QueueKind(),
    NodeKind(),
    SchedulerConfigurationKind(),
    JobKind(),
    PyTorchJobKind(),
    TFJobKind(),
    MPIJobKind(),
    PodGroupKind(),
    PodKind(),
    CommandKind(),
    EventKind(),
)
_BY_TYPE = {(kind.api_version, kind.kind): kind for kind in KINDS}
_BY_MODEL = {kind.model: kind for kind in KINDS}
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
CONF_SUFFIX = ".conf"


def load_manifest(data: object) -> Loaded:
    """Return the manifest ``data`` as an unsaved object; ``ManifestError`` names the bad field."""
    if not isinstance(data, dict):
        raise ManifestError("manifest", f"expected an object, got {type_name(data)}")
    api_version, kind = data.get("apiVersion"), data.get("kind")
    handler = _BY_TYPE.get((str(api_version), str(kind)))
    if handler is None:
        known = ", ".join(f"{k.kind} ({k.api_version})" for k in KINDS)
        raise ManifestError("kind", f"unsupported kind {kind!r} of {api_version!r}; known: {known}")
    return handler.load(data)


def kind_of(instance: Any) -> Kind:
    """Return the manifest kind that reads and writes rows of ``instance``'s model."""
    return _BY_MODEL[type(instance)]


def dump_manifest(instance: Any, children: list[Any] | None = None) -> Manifest:
    """Return the manifest of ``instance`` (``children``: a loaded job's unsaved tasks)."""
    return kind_of(instance).dump(instance, children)


def dump_loaded(loaded: Loaded) -> Manifest:
    """Return the manifest of a loaded (possibly unsaved) object."""
    return loaded.kind.dump(loaded.instance, loaded.children)


def read_manifests(path: Path) -> list[tuple[str, Loaded]]:
    """Return every object in ``path`` (a file or a directory, searched recursively).

    YAML files may hold several documents; ``.conf`` files are scheduler
    configurations. Each object comes with ``source`` (``file`` or ``file#2``)
    for messages; the first bad one raises ``ManifestError`` prefixed with it.
    """
    files = (
        sorted(
            p
            for p in path.rglob("*")
            if p.is_file() and p.suffix in (*MANIFEST_SUFFIXES, CONF_SUFFIX)
        )
        if path.is_dir()
        else [path]
    )
    loaded: list[tuple[str, Loaded]] = []
    for file in files:
        text = file.read_text()
        if file.suffix == CONF_SUFFIX:
            try:
                loaded.append((str(file), load_conf_text(text)))
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
    from core.namespaces import ensure_namespaces

    order = {kind.kind: position for position, kind in enumerate(KINDS)}
    objects = list(objects)
    lines = []
    with transaction.atomic():
        # As `kubectl apply` of a bundle that includes its namespaces: each object's
        # namespace exists before the object.
        for name in ensure_namespaces(
            loaded.instance.namespace for _, loaded in objects if loaded.kind.namespaced
        ):
            lines.append(f"namespace/{name} created")
        for source, loaded in sorted(objects, key=lambda item: order[item[1].kind.kind]):
            try:
                outcome = loaded.kind.apply(loaded)
            except ManifestError as exc:
                raise ManifestError(f"{source}: {exc.field}", exc.message) from exc
            lines.append(f"{loaded.display_name} {outcome}")
    return lines
