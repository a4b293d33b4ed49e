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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.db import models

from kube.entries import (
    AGE,
    KUBE_AGE,
    READ_VERBS,
    WRITE_VERBS,
    AccessControl,
    AccessRule,
    AdmissionPlugin,
    Column,
    Controller,
    Entry,
    Invalid,
    KindListener,
    SessionHook,
    SessionReport,
)

if TYPE_CHECKING:
    from kube.manifest_kinds import Kind, Loaded

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
