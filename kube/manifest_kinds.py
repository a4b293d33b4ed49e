"""The shape every manifest kind shares: load, dump and apply (create or update) one object.

A ``Kind`` knows its ``apiVersion``/``kind``, its model and how to read and write
its body; this base does the rest the same way for all of them: metadata,
unknown top-level keys, name rules, database validation with errors mapped back
to wire paths, and kubectl's ``created`` / ``configured`` / ``unchanged``.
Loading never touches the database, so manifests can be checked without one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models
from django.db.models import CheckConstraint, Q, UniqueConstraint

from apis.errors import ManifestError
from apis.wire import Fields, Manifest, format_time, plain_json
from kube.object_meta import read_finalizers, read_owner_references
from kube.validators import (
    annotations_error,
    dns1123_label_error,
    dns1123_subdomain_error,
    label_key_error,
    label_value_error,
)

__all__ = ["Kind", "Loaded", "validate_constraints"]


_SCALARS = frozenset({str, int, float, bool, type(None)})


class _NotPlainError(Exception):
    """A value ``_plain`` does not copy as it is (``plain_json`` converts or refuses it)."""


def _plain(value: Any) -> Any:
    """Return a copy of ``value`` when it is plain JSON data already, else raise _NotPlain.

    ``plain_json``'s result for such data, at a fraction of its cost: no path is spelled out
    for every key (it is needed only for the error), and exact types are checked instead
    of ``isinstance`` chains. An API list renders hundreds of objects per page.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        copied = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlainError
            copied[key] = item if type(item) in _SCALARS else _plain(item)
        return copied
    if kind is list:
        return [item if type(item) in _SCALARS else _plain(item) for item in value]
    raise _NotPlainError


class _NotInPythonError(Exception):
    """A check constraint ``_holds`` cannot decide without the database (an F(), a join)."""


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "exact": lambda value, wanted: bool(value == wanted),
    "in": lambda value, wanted: value in wanted,
    "gt": lambda value, wanted: bool(value > wanted),
    "gte": lambda value, wanted: bool(value >= wanted),
    "lt": lambda value, wanted: bool(value < wanted),
    "lte": lambda value, wanted: bool(value <= wanted),
}


def _holds(condition: Q, instance: Any) -> bool | None:
    """Return what SQL would make of ``condition`` on ``instance``'s own fields.

    Three-valued as in SQL: ``None`` where a compared field is NULL. Only plain values
    compared with the instance's own columns; anything else raises ``_NotInPythonError``.
    """
    results: list[bool | None] = []
    for child in condition.children:
        if isinstance(child, Q):
            results.append(_holds(child, instance))
            continue
        if not isinstance(child, tuple) or len(child) != 2:
            raise _NotInPythonError
        lookup, wanted = child
        name, _, op = str(lookup).partition("__")
        op = op or "exact"
        if op == "exact" and wanted is None:  # Q(field=None) is IS NULL
            op, wanted = "isnull", True
        if "__" in op or hasattr(wanted, "resolve_expression"):
            raise _NotInPythonError
        try:
            field = instance._meta.get_field(name)
        except FieldDoesNotExist as exc:
            raise _NotInPythonError from exc
        if not getattr(field, "concrete", False) or getattr(field, "many_to_many", False):
            raise _NotInPythonError
        value = getattr(instance, field.attname)
        if op == "isnull":
            results.append((value is None) == bool(wanted))
        elif op not in _COMPARE:
            raise _NotInPythonError
        elif value is None:
            results.append(None)
        else:
            results.append(_COMPARE[op](value, wanted))
    if condition.connector == Q.OR:
        result = True if True in results else (None if None in results else False)
    else:
        result = False if False in results else (None if None in results else True)
    if condition.negated and result is not None:
        result = not result
    return result


def validate_constraints(instance: Any, *, unique: bool = True) -> None:
    """Validate ``instance`` against its model's constraints, as ``full_clean`` would.

    Why not Django's own: it asks the database for every check constraint (a savepoint, a
    ``SELECT``, a release: 9 statements for a Job's three), where a check on the row's own
    values is decided here; the rest (an ``F()``, a unique constraint) go to Django.
    """
    errors: dict[str, Any] = {}
    for model, constraints in instance.get_constraints():
        for constraint in constraints:
            if isinstance(constraint, UniqueConstraint) and not unique:
                continue
            try:
                if isinstance(constraint, CheckConstraint) and isinstance(constraint.condition, Q):
                    try:
                        if _holds(constraint.condition, instance) is False:
                            raise ValidationError(
                                constraint.get_violation_error_message(),
                                code=constraint.violation_error_code,
                            )
                        continue
                    except _NotInPythonError:
                        pass  # a condition Python cannot judge: the database's query below does
                constraint.validate(model, instance)
            except ValidationError as exc:
                fields: tuple[str, ...] = tuple(getattr(constraint, "fields", ()))
                if getattr(exc, "code", None) == "unique" and len(fields) == 1:
                    errors.setdefault(fields[0], []).append(exc)  # as Django files it
                else:
                    errors = exc.update_error_dict(errors)
    if errors:
        raise ValidationError(errors)


@dataclass
class Loaded:
    """A manifest read into an unsaved model instance (plus children and owner names)."""

    kind: Kind
    instance: Any
    children: list[Any] = field(default_factory=list)
    owner_name: str = ""

    @property
    def display_name(self) -> str:
        """Return kubectl's ``resource/name`` for this object."""
        return f"{self.kind.resource}/{self.kind.name_of(self.instance)}"


class Kind:
    """One manifest kind; subclasses fill in the class attributes, ``read`` and ``write``."""

    api_version: ClassVar[str]
    kind: ClassVar[str]
    resource: ClassVar[str]  # kubectl's name: "job.batch.volcano.sh"
    model: ClassVar[type[models.Model]]
    namespaced: ClassVar[bool] = True
    name_is_label: ClassVar[bool] = False  # DNS-1123 label (queues) instead of subdomain
    # Model fields an apply copies from the manifest onto an existing row.
    spec_fields: ClassVar[tuple[str, ...]] = ()
    # Metadata an apply copies too (Events have none of their own).
    meta_fields: ClassVar[tuple[str, ...]] = (
        "labels",
        "annotations",
        "owner_references",
        "finalizers",
    )
    # Where a model field lives on the wire, for errors found by the database layer.
    wire_paths: ClassVar[dict[str, str]] = {}

    # -- reading ---------------------------------------------------------------
    def load(self, data: object) -> Loaded:
        """Return the manifest ``data`` as an unsaved object; ``ManifestError`` if malformed."""
        doc = Fields(data, "")
        for key, expected in (("apiVersion", self.api_version), ("kind", self.kind)):
            if (value := doc.string(key, required=True)) != expected:
                raise doc.error(key, f"expected {expected!r}, got {value!r}")
        loaded = Loaded(self, self.model())
        meta = doc.obj("metadata")
        self.read_metadata(meta, loaded.instance)
        self.read(doc, meta, loaded)
        meta.done()
        doc.done()
        return loaded

    def read_metadata(self, meta: Fields, instance: Any) -> None:
        """Read the common ``metadata`` fields onto ``instance``."""
        instance.name = meta.string("name", required=True)
        error = (dns1123_label_error if self.name_is_label else dns1123_subdomain_error)(
            instance.name
        )
        if error:
            raise meta.error("name", f"invalid value {instance.name!r}: {error}")
        namespace = meta.string("namespace")
        if self.namespaced:
            instance.namespace = namespace or "default"
            if error := dns1123_label_error(instance.namespace):
                raise meta.error("namespace", f"invalid value {instance.namespace!r}: {error}")
        instance.labels = meta.string_map("labels")
        for key, value in instance.labels.items():
            if error := label_key_error(key) or label_value_error(value):
                raise meta.error(f"labels.{key}", f"invalid label {key}={value!r}: {error}")
        instance.annotations = meta.string_map("annotations")
        bad_key, error = annotations_error(instance.annotations)
        if error:
            where = f"annotations.{bad_key}" if bad_key else "annotations"
            raise meta.error(where, error)
        instance.owner_references = read_owner_references(meta)
        instance.finalizers = read_finalizers(meta)
        instance.uid = meta.uid("uid")
        version = meta.string("resourceVersion")
        if version:
            if not version.isdigit():
                raise meta.error("resourceVersion", f"expected digits, got {version!r}")
            instance.resource_version = int(version)
        instance.created_at = meta.time("creationTimestamp")
        # Server-managed bookkeeping that `kubectl get -o yaml` prints; it carries no spec.
        meta.ignore(
            "generation",
            "managedFields",
            "selfLink",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        )

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        """Read the kind's body (``spec``, ``status``, ...) from ``doc`` onto ``loaded``."""
        raise NotImplementedError

    # -- writing ---------------------------------------------------------------
    def dump(self, instance: Any, children: list[Any] | None = None) -> Manifest:
        """Return the manifest of ``instance`` (saved or just loaded)."""
        manifest = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": self.write_metadata(instance),
            **self.write(instance, children),
        }
        try:
            return _plain(manifest)
        except _NotPlainError:  # an enum member, a mapping type, or worse: the exact, slower walk
            return plain_json(manifest, "")

    def write_metadata(self, instance: Any) -> Manifest:
        """Return the ``metadata`` of ``instance``; uid and friends only once it has them."""
        meta: Manifest = {"name": instance.name}
        if self.namespaced:
            meta["namespace"] = instance.namespace
        if instance.uid is not None:
            meta["uid"] = str(instance.uid)
            meta["resourceVersion"] = str(instance.resource_version)
        if instance.created_at is not None:
            meta["creationTimestamp"] = format_time(instance.created_at)
        if instance.labels:
            meta["labels"] = dict(instance.labels)
        if instance.annotations:
            meta["annotations"] = dict(instance.annotations)
        if refs := getattr(instance, "owner_references", None):
            meta["ownerReferences"] = [dict(ref) for ref in refs]
        if finalizers := getattr(instance, "finalizers", None):
            meta["finalizers"] = list(finalizers)
        if (deleted := getattr(instance, "deletion_timestamp", None)) is not None:
            meta["deletionTimestamp"] = format_time(deleted)
            meta["deletionGracePeriodSeconds"] = 0
        return meta

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        """Return the kind's body (everything after ``metadata``)."""
        raise NotImplementedError

    def name_of(self, instance: Any) -> str:
        """Return the name kubectl prints for ``instance``."""
        return str(instance.name)

    # -- applying --------------------------------------------------------------
    def lookup(self, loaded: Loaded) -> Any | None:
        """Return the stored row ``loaded`` would update, locked, or ``None``."""
        keys = {"name": loaded.instance.name}
        if self.namespaced:
            keys["namespace"] = loaded.instance.namespace
        return self.model._default_manager.select_for_update().filter(**keys).first()

    def resolve(self, loaded: Loaded) -> None:
        """Turn names in ``loaded`` into foreign keys (owners); nothing by default."""

    def apply(self, loaded: Loaded) -> str:
        """Create or update the object; return ``created``, ``configured`` or ``unchanged``."""
        self.resolve(loaded)
        existing = self.lookup(loaded)
        self.admit(loaded, existing)
        if existing is None:
            instance = self.new_row(loaded)
            if self.meta_fields:  # a new object gets a new uid, as on a fresh cluster
                instance.uid = None
                instance.resource_version = 1
            self.validate(instance)
            instance.save()
            self.save_children(instance, loaded.children)
            return "created"
        before = self.dump(existing, self.stored_children(existing))
        refs_before = getattr(existing, "owner_references", None)
        for name in (*self.meta_fields, *self.spec_fields):
            setattr(existing, name, getattr(loaded.instance, name))
        if getattr(existing, "owner_references", None) != refs_before:
            existing._owner_links_stale = True  # kube.garbage rewrites its links
        if self.dump(existing, loaded.children) == before:
            return "unchanged"
        self.validate(existing)
        existing.save()
        self.save_children(existing, loaded.children)
        return "configured"

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Run the kind's admission rules (defaults, refusals) before any write; none by default."""

    def new_row(self, loaded: Loaded) -> Any:
        """Return the row to insert for a new object (by default, all that was loaded)."""
        return loaded.instance

    def stored_children(self, instance: Any) -> list[Any] | None:
        """Return the stored children of ``instance`` (none for most kinds)."""
        return None

    def save_children(self, instance: Any, children: list[Any]) -> None:
        """Replace the stored children of ``instance``; nothing by default."""

    def validate(self, instance: Any, *, unique_checked: bool = False) -> None:
        """Run the model's validators and constraints, reporting fields by wire path.

        ``unique_checked``: the caller already knows the object's key is free (or its own),
        so the unique constraints are not asked again.
        """
        try:
            instance.full_clean(validate_unique=False, validate_constraints=False)
            validate_constraints(instance, unique=not unique_checked)
        except ValidationError as exc:
            name, messages = next(iter(exc.message_dict.items()))
            path = self.wire_paths.get(name, name if name != "__all__" else "metadata.name")
            raise ManifestError(path, "; ".join(messages)) from exc
