"""The registry: what each app serves and runs, announced in its ``AppConfig.ready()``.

Kubernetes' API server learns its resources from what is installed (built-in groups, CRDs,
aggregated servers); ours learns them from the apps. Each app registers, once, when Django is
ready:

- its **kinds** (``register_kind``): the served resource, its discovery names and printer
  columns, who may read and write it, where ``manage.py apply`` takes it in the apply order,
  and the hooks its deletion needs (a pod is deleted gracefully, a namespace is terminated, a
  queue refuses to go while in use), and how a client exercises it (a minimal manifest, a value
  it refuses: ``tests/kube/test_every_kind.py`` runs every served kind through the API so);
- **examples** the console's Submit page offers (``register_examples``: Volcano's example jobs,
  its JobFlow and CronJob examples);
- **manifests** that are applied but not served as a resource (``register_manifest``: the
  scheduler configuration as Volcano's ConfigMap) and file loaders (``register_file_loader``:
  ``.conf`` files);
- **access rules** for API names that are not kinds (``register_access``: faults, the audit log)
  and the discovery entries of resources an app serves with its own views
  (``register_api_resource``: the scheduler configuration, metrics.k8s.io, the audit log);
- **hooks** other apps' writes must reach: admission plugins (``add_admission_plugin``:
  NamespaceLifecycle), apply hooks (``add_apply_hook``: a bundle's namespaces), eviction hooks
  (``add_eviction_hook``: a job hears that one of its pods was deleted by someone else) and
  release hooks (``add_release_hook``: an emptied namespace finishes terminating) and
  reference counters (``add_reference_counter``: the jobs that name a queue, which the
  console will not delete from under them);
- what the **worker** runs each cycle: controllers before the session (``add_controller``),
  node runtimes (``add_runtime``), hooks after it (``add_session_hook``) and start-up chores
  (``add_startup_hook``);
- the **access control** the API server's views apply (``set_access_control``): how callers are
  authenticated and which namespaces they may see (who acts is kept by ``kube.actor``).

The kernel (discovery, tables, OpenAPI, the change stream, admission, the store, garbage
collection, finalizers) and the worker read this module; none of them imports an app. So adding
a kind touches only its app. Whoever must act on each served model (the change stream's and
garbage collector's receivers, the audit log's) hears of each kind as it is registered
(``add_kind_listener``), whatever order the apps become ready in.

Registration is idempotent by key (a kind by group and plural, a hook by name), so an app's
``ready()`` may run twice (Django's test runner, ``importlib.reload``) without serving a kind
twice. Kinds keep the order they were first registered in (apps in ``INSTALLED_APPS`` order,
each app's in its own), and discovery lists them so: a group's resources in the order its app
registers them. ``unregister_kind`` stops serving one (a CRD deleted), which tests use to show
that a kind is served only because its app registered it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from django.db import models

if TYPE_CHECKING:
    from kube.manifest_kinds import Kind, Loaded
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
    "Entry",
    "Invalid",
    "SessionHook",
    "SessionReport",
    "access_control",
    "access_rule",
    "add_admission_plugin",
    "add_apply_hook",
    "add_controller",
    "add_eviction_hook",
    "add_kind_listener",
    "add_reference_counter",
    "add_release_hook",
    "add_runtime",
    "add_session_hook",
    "add_startup_hook",
    "admission_plugins",
    "api_resource_schema",
    "api_resources",
    "apply_hooks",
    "controllers",
    "entries",
    "entry",
    "entry_for_model",
    "evicted",
    "example_dirs",
    "file_loaders",
    "manifest_kinds",
    "namespace_model",
    "namespaced_entries",
    "references",
    "register_access",
    "register_api_resource",
    "register_examples",
    "register_file_loader",
    "register_kind",
    "register_manifest",
    "released",
    "revision",
    "runtimes",
    "served_models",
    "session_hooks",
    "set_access_control",
    "startup_hooks",
    "unregister_access",
    "unregister_kind",
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


class _Registry:
    """Everything the apps announced; one per process (``_REGISTRY``)."""

    def __init__(self) -> None:
        self.kinds: dict[tuple[str, str], Entry] = {}
        self.by_model: dict[type[models.Model], Entry] = {}
        self.manifests: dict[tuple[str, str], tuple[int, Kind]] = {}
        self.file_loaders: dict[str, Callable[[str], Loaded]] = {}
        self.examples: dict[str, Path] = {}
        self.access: dict[str, AccessRule] = {}
        self.api_resources: dict[str, dict[str, Mapping[str, Any]]] = {}
        self.api_schemas: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
        self.admission: dict[str, AdmissionPlugin] = {}
        self.apply_hooks: dict[str, Callable[[Sequence[Loaded]], list[str]]] = {}
        self.eviction: dict[str, dict[str, Callable[[Any], object]]] = {}
        self.release: dict[str, Callable[[Any], object]] = {}
        self.controllers: dict[str, Controller] = {}
        self.runtimes: dict[str, Callable[[], object]] = {}
        self.session_hooks: dict[str, SessionHook] = {}
        self.startup: dict[str, Callable[[], object]] = {}
        self.references: dict[str, dict[str, Callable[[Any], int]]] = {}
        self.access_control: AccessControl | None = None
        self.kind_listeners: dict[str, KindListener] = {}
        # Bumped whenever the served kinds change: what the kernel caches about them keys on it.
        self.revision = 0


_REGISTRY = _Registry()


# -- registering ------------------------------------------------------------------------


def register_kind(entry: Entry, *, access: AccessRule | None = None) -> Entry:
    """Serve ``entry``'s resource: discovery, tables, watch, admission, apply order, hooks.

    ``access`` is the rule for the resource's access name (``entry.resource.access``; the
    three Kubeflow kinds share one). The kind listeners hear of it at once: the change
    stream's and garbage collector's receivers are connected to its model then, so a kind
    registered late (a test's) is recorded all the same.
    """
    resource = entry.resource
    _REGISTRY.kinds[(resource.group, resource.plural)] = entry
    _REGISTRY.by_model[resource.model] = entry
    _REGISTRY.revision += 1
    if entry.apply_order is not None:
        register_manifest(resource.manifest, order=entry.apply_order)
    if access is not None:
        register_access(resource.access, access)
    for listener in list(_REGISTRY.kind_listeners.values()):
        listener(entry)
    return entry


def unregister_kind(group: str, plural: str) -> Entry | None:
    """Stop serving ``plural`` of ``group`` (as when a CRD is deleted); return its entry.

    Its manifest leaves the apply order with it. Access rules stay: they are names, which
    another kind may share. Receivers already connected to its model stay too, and act only
    on served kinds.
    """
    entry = _REGISTRY.kinds.pop((group, plural), None)
    if entry is None:
        return None
    _REGISTRY.by_model = {e.resource.model: e for e in _REGISTRY.kinds.values()}
    manifest = entry.resource.manifest
    key = (manifest.api_version, manifest.kind)
    if entry.apply_order is not None and _REGISTRY.manifests.get(key, (0, None))[1] is manifest:
        del _REGISTRY.manifests[key]
    _REGISTRY.revision += 1
    return entry


def unregister_access(name: str) -> None:
    """Withdraw the rule of the API name ``name``: nobody may then use it."""
    _REGISTRY.access.pop(name, None)


def add_kind_listener(name: str, listener: KindListener) -> None:
    """Call ``listener(entry)`` for every kind served now and every kind registered later.

    How the kernel's receivers reach each served model (``kube.changes``, ``kube.garbage``)
    without the kernel importing an app or caring in which order the apps became ready.
    """
    _REGISTRY.kind_listeners[name] = listener
    for entry in list(_REGISTRY.kinds.values()):
        listener(entry)


def register_manifest(kind: Kind, *, order: int) -> None:
    """Let ``manage.py apply`` read ``kind`` (``apiVersion``/``kind``), applied at ``order``."""
    _REGISTRY.manifests[(kind.api_version, kind.kind)] = (order, kind)


def register_file_loader(suffix: str, loader: Callable[[str], Loaded]) -> None:
    """Read files ending in ``suffix`` (``.conf``) with ``loader`` instead of as YAML."""
    _REGISTRY.file_loaders[suffix] = loader


def register_examples(app: str, directory: Path) -> None:
    """Offer the manifests in ``directory`` (``*.yaml``, titled by a first ``# `` line) as the
    Submit page's templates."""
    _REGISTRY.examples[app] = directory


def example_dirs() -> tuple[Path, ...]:
    """Return the directories of example manifests the apps offer, in registration order."""
    return tuple(_REGISTRY.examples.values())


def register_access(name: str, rule: AccessRule) -> None:
    """Say who may read and write the API name ``name`` (``faults``, ``jobs/status``)."""
    _REGISTRY.access[name] = rule


def register_api_resource(
    group_version: str,
    resource: Mapping[str, Any],
    *,
    schema: tuple[str, dict[str, Any]] | None = None,
) -> None:
    """List ``resource`` (an ``APIResource``: name, kind, verbs...) in ``group_version``'s
    discovery: for resources an app serves with its own views rather than as a kind.

    ``schema`` is its kind's OpenAPI schema, as ``Entry.schema`` is a kind's: ``/openapi/v2``
    and ``/openapi/v3`` describe every resource discovery lists (kubectl validates and
    explains from them), with the operations its verbs name.
    """
    name = str(resource["name"])
    _REGISTRY.api_resources.setdefault(group_version, {})[name] = resource
    if schema is not None:
        _REGISTRY.api_schemas[(group_version, name)] = schema
    _REGISTRY.revision += 1


def add_admission_plugin(name: str, plugin: AdmissionPlugin) -> None:
    """Run ``plugin(resource, manifest, operation)`` on every API create and update.

    ``manifest`` is the object as the client sent it, checked against the path (``apiVersion``,
    ``kind``, ``metadata.namespace`` filled from it) and not yet read: kube-apiserver runs its
    admission chain before it validates the object, so NamespaceLifecycle's 404 comes before
    any complaint about a field. ``operation`` is ``"CREATE"`` or ``"UPDATE"``; the plugin
    raises ``KubeError`` to refuse.
    """
    _REGISTRY.admission[name] = plugin


def add_apply_hook(name: str, hook: Callable[[Sequence[Loaded]], list[str]]) -> None:
    """Run ``hook(objects)`` before ``manage.py apply`` writes a bundle; it returns kubectl
    lines for what it wrote itself (``namespace/team-a created``)."""
    _REGISTRY.apply_hooks[name] = hook


def add_eviction_hook(model_label: str, name: str, hook: Callable[[Any], object]) -> None:
    """Call ``hook(instance)`` when an object of ``model_label`` is deleted by anyone but its
    controller (an API DELETE, the admin, a finalizer's release), inside that transaction.

    Volcano's job controller hears of every deleted pod of a job it did not delete itself and
    raises ``PodEvicted``; this is how the jobs app hears it.
    """
    _REGISTRY.eviction.setdefault(model_label, {})[name] = hook


def add_release_hook(name: str, hook: Callable[[Any], object]) -> None:
    """Call ``hook(instance)`` after an object held by finalizers finally went."""
    _REGISTRY.release[name] = hook


def add_controller(controller: Controller) -> None:
    """Run ``controller`` each cycle, before the session (in ``order``)."""
    _REGISTRY.controllers[controller.name] = controller


def add_runtime(name: str, tick: Callable[[], object]) -> None:
    """Tick a node runtime once per embedded cycle (the simulated kubelet)."""
    _REGISTRY.runtimes[name] = tick


def add_session_hook(hook: SessionHook) -> None:
    """Run ``hook`` after each recorded session and in the leader's housekeeping."""
    _REGISTRY.session_hooks[hook.name] = hook


def add_startup_hook(name: str, hook: Callable[[], object]) -> None:
    """Run ``hook()`` when a scheduler loop starts (Volcano creates its built-in queues)."""
    _REGISTRY.startup[name] = hook


def add_reference_counter(model_label: str, name: str, count: Callable[[Any], int]) -> None:
    """Count, with ``count(instance)``, the objects of another app that name an object of
    ``model_label`` by a plain field (a Job names its queue in ``spec.queue``).

    The app that owns the named kind reads the counts (``references``) without importing the
    apps that name it: the console refuses to delete a queue that jobs still name.
    """
    _REGISTRY.references.setdefault(model_label, {})[name] = count


def set_access_control(control: AccessControl) -> None:
    """Name how the API server's views authenticate and authorise (``accounts``)."""
    _REGISTRY.access_control = control


# -- reading ----------------------------------------------------------------------------


def entries() -> list[Entry]:
    """Return every served kind, in the order the kinds were first registered."""
    return list(_REGISTRY.kinds.values())


def entry(group: str, plural: str) -> Entry | None:
    """Return the kind served as ``plural`` of ``group`` (``""``: the core group), if any."""
    return _REGISTRY.kinds.get((group, plural))


def revision() -> int:
    """Return a number that changes whenever the served kinds change (for caches)."""
    return _REGISTRY.revision


def entry_for_model(model: type[models.Model]) -> Entry | None:
    """Return the entry of the kind stored in ``model`` (None: not served)."""
    return _REGISTRY.by_model.get(model)


def served_models() -> list[type[models.Model]]:
    """Return every model a watch can be opened on (each served kind's)."""
    return [entry.model for entry in entries()]


def manifest_kinds() -> list[Kind]:
    """Return the kinds ``manage.py apply`` reads, in apply order."""
    return [kind for _, kind in sorted(_REGISTRY.manifests.values(), key=lambda item: item[0])]


def file_loaders() -> Mapping[str, Callable[[str], Loaded]]:
    """Return the loaders of non-YAML files, by suffix."""
    return dict(_REGISTRY.file_loaders)


def access_rule(name: str) -> AccessRule | None:
    """Return who may read and write the API name ``name`` (None: nobody)."""
    return _REGISTRY.access.get(name)


def api_resources() -> dict[str, list[Mapping[str, Any]]]:
    """Return the resources served by apps' own views, by group version (registration order)."""
    return {gv: list(found.values()) for gv, found in _REGISTRY.api_resources.items()}


def api_resource_schema(group_version: str, name: str) -> tuple[str, dict[str, Any]] | None:
    """Return the OpenAPI schema declared with an app-served resource (None: none declared)."""
    return _REGISTRY.api_schemas.get((group_version, name))


def admission_plugins() -> list[AdmissionPlugin]:
    """Return the admission plugins, in registration order."""
    return list(_REGISTRY.admission.values())


def apply_hooks() -> list[Callable[[Sequence[Loaded]], list[str]]]:
    """Return the hooks run before a bundle is applied."""
    return list(_REGISTRY.apply_hooks.values())


def evicted(instance: Any) -> None:
    """Tell the eviction hooks of ``instance``'s kind that it is being deleted."""
    for hook in _REGISTRY.eviction.get(instance._meta.label_lower, {}).values():
        hook(instance)


def references(instance: Any) -> dict[str, int]:
    """Return how many objects of each counter name ``instance`` (only counters that found some)."""
    counters = _REGISTRY.references.get(instance._meta.label_lower, {})
    return {name: n for name, count in counters.items() if (n := count(instance))}


def released(instance: Any) -> None:
    """Tell the release hooks that ``instance``, held by finalizers, went."""
    for hook in _REGISTRY.release.values():
        hook(instance)


def controllers() -> list[Controller]:
    """Return the controllers in the order the worker runs them."""
    return sorted(_REGISTRY.controllers.values(), key=lambda c: (c.order, c.name))


def runtimes() -> list[Callable[[], object]]:
    """Return the node runtimes the embedded loop ticks."""
    return list(_REGISTRY.runtimes.values())


def session_hooks() -> list[SessionHook]:
    """Return the after-session hooks."""
    return list(_REGISTRY.session_hooks.values())


def startup_hooks() -> list[Callable[[], object]]:
    """Return the chores a starting scheduler loop runs."""
    return list(_REGISTRY.startup.values())


def access_control() -> AccessControl | None:
    """Return how the API server authenticates and authorises (None: nobody is let in)."""
    return _REGISTRY.access_control


def namespace_model() -> type[models.Model] | None:
    """Return the model of the served ``v1`` Namespaces, by name (None: no app serves them).

    For the layers below core that read namespaces (grants, the console's namespace choice):
    they find the kind as a client would, by its resource name, not by importing core.
    """
    served = _REGISTRY.kinds.get(("", "namespaces"))
    return served.model if served is not None else None


def namespaced_entries() -> Iterable[Entry]:
    """Return the namespaced kinds, owners before what they own (apply order, then the rest)."""
    namespaced = [e for e in entries() if e.resource.namespaced]
    return sorted(namespaced, key=lambda e: (e.apply_order is None, e.apply_order or 0))
