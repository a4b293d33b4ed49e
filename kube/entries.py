"""What the registry holds: the entries apps announce and the hooks' shapes.

``kube.registry`` keeps the one registry and its functions; this module holds only plain data
(a served kind's ``Entry`` with its ``Column``s, an ``AccessRule``, an ``Invalid`` value, a
``Controller``, a ``SessionHook`` and its ``SessionReport``, the ``AccessControl``), so that a
module describing a kind reads as data and the registry's module stays about registering.
``kube.registry`` re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from django.db import models

if TYPE_CHECKING:
    from kube.resources import Resource

__all__ = [
    "AGE",
    "KUBE_AGE",
    "READ_VERBS",
    "WRITE_VERBS",
    "AccessControl",
    "AccessRule",
    "AdmissionPlugin",
    "Column",
    "Controller",
    "DeleteHook",
    "Entry",
    "Invalid",
    "KindListener",
    "SessionHook",
    "SessionReport",
]

READ_VERBS = ("get", "list", "watch")
WRITE_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


# -- kinds ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """One printer column: ``jsonPath`` is a dotted path from the object's root.

    A path starting with ``@`` names a computed cell (``kube.tables``: ``@pod-status``).
    """

    name: str
    type: str
    json_path: str
    priority: int = 0
    format: str = ""
    description: str = ""
    # What kube-apiserver prints for an unset optional field (a pending pod's NODE is <none>).
    empty: str | None = None


# Volcano's CRDs name their age column AGE; kube-apiserver's own printers and a CRD without
# printer columns say Age (kubectl upper-cases both; raw Table readers see the difference).
AGE = Column("AGE", "date", ".metadata.creationTimestamp", description="Time since creation")
KUBE_AGE = Column("Age", "date", ".metadata.creationTimestamp", description="Time since creation")


@dataclass(frozen=True)
class AccessRule:
    """Which roles may read and write one API name (role names: ``accounts.roles``).

    ``namespaced`` rules hold only in the namespaces a caller was granted; an empty ``write``
    makes the name read-only (``pods/log``).
    """

    read: frozenset[str]
    write: frozenset[str]
    namespaced: bool


@dataclass(frozen=True)
class Invalid:
    """One value a kind refuses, which the API answers with a 422 naming the field.

    ``path`` is where in the kind's example the value goes, dotted with list indexes
    (``spec.tasks[0].replicas``); ``field`` is what ``details.causes[].field`` names (the path,
    unless said otherwise).
    """

    path: str
    value: Any
    field: str = ""

    @property
    def cause_field(self) -> str:
        """Return the field the 422's causes name."""
        return self.field or self.path


class DeleteHook(Protocol):
    """A kind's own deletion step, run in the store's transaction before the row goes.

    Return True when the kind took the deletion over and the object stays for now (a pod on a
    node terminating gracefully, a namespace terminating); False to let the store delete it.
    """

    def __call__(self, instance: Any, /, *, grace_period: int | None) -> bool: ...


@dataclass(frozen=True)
class Entry:
    """A served resource and what clients and the kernel are told about it."""

    resource: Resource
    singular: str
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    columns: tuple[Column, ...] = (KUBE_AGE,)
    subresources: tuple[str, ...] = ()
    # Every kind's table opens with Name but Event's, which kube-apiserver lists last and
    # wide only (``kubectl get events`` prints LAST SEEN first).
    name_first: bool = True
    # Where ``manage.py apply`` takes this kind (what others refer to comes first); None: a
    # manifest file may not create it (Secrets, Namespaces). Namespace clean-up deletes in the
    # same order, owners before what they own. Today's places, in tens: PriorityClass 10,
    # ResourceQuota 15, Queue 20, Node 30, the scheduler's ConfigMap 40, JobTemplate 44,
    # JobFlow 46, CronJob 48, Job 50, the Kubeflow jobs 60-62, PodGroup 70, Service 75,
    # NetworkPolicy 76, PodDisruptionBudget 77, Pod 80, Command 90, Event 100.
    apply_order: int | None = None
    # The kind's own deletion step (``DeleteHook``), if any.
    delete: DeleteHook | None = None
    # Refuse a deletion: raise ``AdmissionError`` (Volcano keeps a queue that holds jobs).
    admit_delete: Callable[[Any], None] | None = None
    # Finish the deletion of an object whose last finalizer went; return whether it went
    # (a namespace waits until it is empty). None: the store deletes the row.
    finish: Callable[[Any], bool] | None = None
    # Fields whose changes by a person are audited (``accounts.audit``), shown by these names.
    audited_fields: tuple[str, ...] = ()
    # Those of them that hold a resource list in milli-units, shown as quantities (``2Gi``).
    audited_quantities: tuple[str, ...] = ()
    # How a client exercises the kind: every served kind is listed, created, read, patched,
    # printed, watched, deleted and refused through the API by ``tests/kube/test_every_kind.py``
    # with these. ``example`` is a minimal valid manifest (a namespaced kind's goes in
    # ``default``; it may name what exists from the start: the ``default`` queue), ``invalid``
    # one value it refuses.
    example: Mapping[str, Any] | None = None
    invalid: Invalid | None = None
    # Objects of other kinds the example refers to, created first (a Command's target job).
    example_needs: tuple[Mapping[str, Any], ...] = ()
    # A merge patch the kind accepts and keeps (None: a label; an Event keeps no labels).
    change: Mapping[str, Any] | None = None
    # The kind's OpenAPI schema (``kubectl explain``): a description and the properties after
    # ``metadata`` (``kube.schemas`` has the builders); None: the kernel's own, else free-form.
    schema: tuple[str, dict[str, Any]] | None = None
    # The console page of one object: a URL name taking its name, and its namespace when the
    # kind is namespaced ("" for none); ``console.links`` reverses it.
    console_page: str = ""
    # Who creates the objects when clients may not (a read-only kind: the job controller writes
    # Secrets); "" when clients create them. The tests say it when they skip a create.
    created_by: str = ""

    @property
    def group_version(self) -> str:
        """Return ``group/version`` (``v1`` for the core group)."""
        resource = self.resource
        return f"{resource.group}/{resource.version}" if resource.group else resource.version

    @property
    def verbs(self) -> tuple[str, ...]:
        """Return the verbs the views serve for this resource."""
        return WRITE_VERBS if self.resource.writable else READ_VERBS

    @property
    def model(self) -> type[models.Model]:
        """Return the model that stores this resource."""
        return self.resource.model

    @property
    def label(self) -> str:
        """Return the model's label (``core.pod``): the change stream's and topics' name."""
        return self.resource.model._meta.label_lower


# -- the worker -------------------------------------------------------------------------


@dataclass(frozen=True)
class Controller:
    """A level-triggered controller the worker runs each cycle, before the session.

    ``reconcile(now)`` must be idempotent: running it twice changes nothing. Controllers run in
    ``order`` (the job controller before the training operator's).
    """

    name: str
    reconcile: Callable[[datetime], object]
    order: int = 100


@dataclass(frozen=True, slots=True)
class SessionReport:
    """What one scheduling session leaves for the apps that keep its figures.

    Plain data, so that an app below the scheduler reads it without the engine's types:
    ``sample`` is the session's figures in the history's layout (``monitoring/__init__.py``;
    built by ``scheduler.session_sample``, less the layout's version and latency buckets, which
    the history adds), present when a hook's ``wants_sample`` asked for it; ``node_loads`` maps
    each node's primary key to what its pods request after the session: ``(cpu, memory, gpu)``
    in milli-units and the pod count (``scheduler.load_status.NodeLoads``).
    """

    now: datetime
    sample: Mapping[str, Any] | None = None
    node_loads: Mapping[int, tuple[int, int, int, int]] | None = None


@dataclass(frozen=True)
class SessionHook:
    """Run after each recorded session (``after``) and once per leader cycle (``housekeeping``).

    A hook that fails is logged and the cycle goes on: figures are never worth a lost session.
    """

    name: str
    after: Callable[[SessionReport], None]
    wants_sample: Callable[[], bool] = field(default=lambda: False)
    housekeeping: Callable[[datetime], object] | None = None


# -- access control ---------------------------------------------------------------------


@dataclass(frozen=True)
class AccessControl:
    """How the API server's views authenticate and authorise a call.

    ``authentication_classes`` and ``permission_classes`` are DRF's; ``namespaces(user)``
    returns the namespaces the user may see (None: every one). Who acts is kept by the kernel
    (``kube.actor``) for the audit log to read.
    """

    authentication_classes: Sequence[type[Any]]
    permission_classes: Sequence[type[Any]]
    namespaces: Callable[[Any], frozenset[str] | None]


# Hooks with a Kubernetes flavour: an admission plugin sees every API create and update, as
# the client sent it (``plugin(resource, manifest, operation)``), before it is read.
AdmissionPlugin = Callable[["Resource", Mapping[str, Any], str], None]
# Told of each kind when it is registered (and of those registered before it listened).
KindListener = Callable[[Entry], None]
