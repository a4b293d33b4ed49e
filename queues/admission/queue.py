"""Queue admission: Volcano's queue webhook, VAP and CRD rules (create, update, delete).

``default_queue`` fills the mutating webhook's defaults; ``validate_queue``
returns every create/update violation and ``validate_queue_delete`` every reason
a delete is refused; ``admit_queue`` / ``admit_queue_delete`` raise
``kube.admission_causes.AdmissionError`` with them (see ``jobs.admission`` for the API).
The ``root`` queue exists from the start (migration ``0005_root_queue``, and
``queues.services.queue_ensure_builtin`` at start-up) as the parent of every queue: a
blank or ``root`` parent means it. Root is never deleted, closed or given a parent, and
its resources never change (Volcano's ``--enable-root-queue-protection``, on by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apis.errors import ManifestError
from apis.wire import Fields, format_resources
from core.models import Pod
from kube.admission_causes import Causes, CauseType
from kube.manifest_kinds import Loaded
from kube.validators import dns1123_subdomain_error
from queues.manifests import QueueKind
from queues.manifests.affinity import read_affinity
from queues.manifests.reread import reread
from queues.models import PROTECTED_QUEUE_NAMES, DequeueStrategy, Queue, QueueState

__all__ = [
    "MAX_QUEUE_DEPTH",
    "admit_queue",
    "admit_queue_delete",
    "default_queue",
    "validate_queue",
    "validate_queue_delete",
]

ROOT = "root"
MAX_QUEUE_DEPTH = 5  # webhook-manager --max-queue-depth
MAX_WEIGHT = 65535
HIERARCHY = "volcano.sh/hierarchy"
HIERARCHY_WEIGHTS = "volcano.sh/hierarchy-weights"
SETTABLE_STATES = (QueueState.OPEN, QueueState.CLOSED)
RESOURCE_FIELDS = ("capability", "deserved", "guarantee")
_WIRE = {
    "capability": "spec.capability",
    "deserved": "spec.deserved",
    "guarantee": "spec.guarantee.resource",
}


def default_queue(queue: Queue) -> None:
    """Fill Volcano's defaults: weight 1, and ``root/`` in front of legacy hierarchy paths."""
    queue.weight = queue.weight or 1
    annotations = dict(queue.annotations)
    path = annotations.get(HIERARCHY)
    if path and not (path == ROOT or path.startswith(f"{ROOT}/")):
        annotations[HIERARCHY] = f"{ROOT}/{path}"
        if HIERARCHY_WEIGHTS in annotations:
            annotations[HIERARCHY_WEIGHTS] = f"1/{annotations[HIERARCHY_WEIGHTS]}"
    queue.annotations = annotations


def validate_queue(queue: Queue, *, old: Queue | None = None) -> Causes:
    """Return every violation of creating ``queue`` (or updating ``old`` to it)."""
    causes = Causes()
    if not 1 <= queue.weight <= MAX_WEIGHT:
        causes.invalid("spec.weight", f"{queue.weight}: must be in the range 1-{MAX_WEIGHT}")
    if queue.priority < 0:
        causes.invalid("spec.priority", "must be greater than or equal to 0")
    if queue.dequeue_strategy not in DequeueStrategy.values:
        causes.not_supported("spec.dequeueStrategy", queue.dequeue_strategy, DequeueStrategy.values)
    if queue.parent and (error := dns1123_subdomain_error(queue.parent)):
        causes.invalid("spec.parent", f"{queue.parent!r}: {error}")
    if (old is None or queue.state != old.state) and queue.state not in SETTABLE_STATES:
        causes.add(
            "status.state",
            CauseType.NOT_SUPPORTED,
            f"{queue.state!r}: queue state must be in [{' '.join(SETTABLE_STATES)}]",
        )
    _validate_resources(queue, causes)
    _validate_affinity(queue, causes)
    _validate_hierarchy_annotations(queue, causes)
    if queue.name == ROOT:
        _validate_root(queue, old, causes)
        return causes
    parent_changed = old is None or (queue.parent or ROOT) != (old.parent or ROOT)
    if parent_changed:
        _validate_parent(queue, causes)
    resources_changed = old is None or any(
        getattr(queue, name) != getattr(old, name) for name in RESOURCE_FIELDS
    )
    if parent_changed or resources_changed:
        _validate_hierarchy_resources(queue, causes)
    return causes


def _validate_root(queue: Queue, old: Queue | None, causes: Causes) -> None:
    """Refuse what Volcano refuses for ``root``: new resources, a parent, being closed."""
    if old is not None:
        for name in RESOURCE_FIELDS:
            if getattr(queue, name) != getattr(old, name):
                causes.forbidden(
                    _WIRE[name],
                    "root queue's resource attributes (capability, deserved, guarantee) "
                    "cannot be modified",
                )
    if queue.parent and queue.parent != ROOT:
        causes.forbidden("spec.parent", "root queue can not have a parent queue")
    if queue.state in (QueueState.CLOSED, QueueState.CLOSING) and (
        old is None or old.state != queue.state
    ):
        causes.forbidden("status.state", "root queue can not be closed")


def _validate_resources(queue: Queue, causes: Causes) -> None:
    for name in RESOURCE_FIELDS:
        for resource, milli in getattr(queue, name).items():
            if not isinstance(milli, int) or milli < 0:
                causes.invalid(f"{_WIRE[name]}.{resource}", "must be a non-negative quantity")
    for resource, guaranteed in queue.guarantee.items():
        deserved = queue.deserved.get(resource)
        if deserved is None:
            causes.required(
                f"spec.deserved.{resource}",
                f"deserved[{resource}] must be >= guarantee[{resource}]={_q(resource, guaranteed)}",
            )
        elif deserved < guaranteed:
            causes.invalid(
                f"spec.deserved.{resource}",
                f"deserved[{resource}]={_q(resource, deserved)} must be >= "
                f"guarantee[{resource}]={_q(resource, guaranteed)}",
            )
    for resource, deserved in queue.deserved.items():
        capability = queue.capability.get(resource)
        if capability is not None and deserved > capability:
            causes.invalid(
                f"spec.deserved.{resource}",
                f"deserved[{resource}]={_q(resource, deserved)} must be <= "
                f"capability[{resource}]={_q(resource, capability)}",
            )


def _read_affinity(fields: Fields, key: str) -> dict[str, Any] | None:
    return read_affinity(fields)


def _validate_affinity(queue: Queue, causes: Causes) -> None:
    """The CRD checks only the shape of ``spec.affinity`` (the admin writes the JSON as typed)."""
    try:
        reread(_read_affinity, queue.affinity, "spec.affinity")
    except ManifestError as exc:
        causes.invalid(exc.field, exc.message)


def _q(resource: str, milli: int) -> str:
    return format_resources({resource: milli})[resource]


def _validate_hierarchy_annotations(queue: Queue, causes: Causes) -> None:
    path, weights = queue.annotations.get(HIERARCHY), queue.annotations.get(HIERARCHY_WEIGHTS)
    if not path and not weights:
        return
    at = f"metadata.annotations[{HIERARCHY_WEIGHTS}]"
    if path is None or weights is None or path.count("/") != weights.count("/"):
        causes.invalid(at, f"{HIERARCHY} must have the same length with {HIERARCHY_WEIGHTS}")
        return
    for weight in weights.split("/"):
        try:
            valid = float(weight) > 0
        except ValueError:
            valid = False
        if not valid:
            causes.invalid(at, f"{weight} in the {weights} must be larger than 0")
    for other in Queue.objects.exclude(name=queue.name).filter(annotations__has_key=HIERARCHY):
        other_path = other.annotations[HIERARCHY]
        if other_path.startswith(f"{path}/") or path.startswith(f"{other_path}/"):
            causes.forbidden(
                f"metadata.annotations[{HIERARCHY}]",
                f"{path} is not allowed to be in the sub path of {other_path} of queue {other.name}"
                if path.startswith(other_path)
                else f"{other_path} of queue {other.name} is in the sub path of {path}",
            )


def _ancestors(queue: Queue, causes: Causes) -> list[Queue] | None:
    """Return the stored ancestors of ``queue``, nearest first; ``None`` after a problem."""
    chain: list[Queue] = []
    name = queue.parent
    while name and name != ROOT:
        if name == queue.name:
            causes.invalid("spec.parent", f"queue {queue.name} cannot use itself as parent")
            return None
        parent = Queue.objects.filter(name=name).first()
        if parent is None:
            if not chain:
                causes.not_found("spec.parent", f"parent queue {name} not found")
            return None
        chain.append(parent)
        if len(chain) > MAX_QUEUE_DEPTH:
            break
        name = parent.parent
    return chain


def _validate_parent(queue: Queue, causes: Causes) -> None:
    chain = _ancestors(queue, causes)
    if chain is None:
        return
    if len(chain) + 1 > MAX_QUEUE_DEPTH:
        causes.forbidden(
            "spec.parent",
            f"queue {queue.name} exceeds the maximum allowed depth of {MAX_QUEUE_DEPTH}",
        )
    if chain:
        parent = chain[0]
        has_children = Queue.objects.filter(parent=parent.name).exclude(name=queue.name).exists()
        allocated = (
            0
            if has_children
            else Pod.objects.filter(pod_group__queue=parent.name, node__isnull=False).count()
        )
        if allocated:
            causes.forbidden(
                "spec.parent",
                f"queue {parent.name} cannot be the parent queue of queue {queue.name} because "
                f"it has allocated Pods: {allocated}",
            )


def _validate_hierarchy_resources(queue: Queue, causes: Causes) -> None:
    chain = _ancestors(queue, Causes()) or []
    for resource, milli in queue.capability.items():
        limit = next((a.capability[resource] for a in chain if resource in a.capability), None)
        if limit is not None and milli > limit:
            causes.invalid(
                f"spec.capability.{resource}",
                f"queue {queue.name} capability[{resource}]={_q(resource, milli)} exceeds its "
                f"ancestor's capability={_q(resource, limit)}",
            )
    siblings = (
        list(Queue.objects.filter(parent=queue.parent).exclude(name=queue.name)) if chain else []
    )
    for name in ("guarantee", "deserved"):
        if chain:
            _check_sum(name, [queue, *siblings], chain[0], f"{_WIRE[name]}", "parent ", causes)
        children = list(Queue.objects.filter(parent=queue.name))
        if children:
            _check_sum(name, children, queue, _WIRE[name], "", causes)
    for child in Queue.objects.filter(parent=queue.name):
        for resource, milli in child.capability.items():
            own = queue.capability.get(resource)
            if own is not None and own < milli:
                causes.invalid(
                    f"spec.capability.{resource}",
                    f"queue {queue.name} capability[{resource}]={_q(resource, own)} is smaller "
                    f"than its descendants' max capability={_q(resource, milli)} "
                    f"(queue {child.name})",
                )


def _check_sum(
    name: str, members: list[Queue], owner: Queue, at: str, who: str, causes: Causes
) -> None:
    limit: dict[str, int] = getattr(owner, name)
    for resource, allowed in limit.items():
        total = sum(getattr(member, name).get(resource, 0) for member in members)
        if total > allowed:
            causes.invalid(
                f"{at}.{resource}",
                f"{who}queue {owner.name} validation failed: sum of children's {name} "
                f"({resource}: {_q(resource, total)}) exceeds parent's {name} limit "
                f"({resource}: {_q(resource, allowed)})",
            )


def validate_queue_delete(queue: Queue) -> Causes:
    """Return why ``queue`` may not be deleted (``default``/``root``, or child queues)."""
    causes = Causes()
    if queue.name in PROTECTED_QUEUE_NAMES:
        causes.forbidden("metadata.name", f"`{queue.name}` queue can not be deleted")
    children = sorted(Queue.objects.filter(parent=queue.name).values_list("name", flat=True))
    if children:
        causes.forbidden(
            "metadata.name",
            f"queue {queue.name} can not be deleted because it has {len(children)} child "
            f"queues: {', '.join(children)}",
        )
    return causes


def admit_queue(obj: Mapping[str, Any] | Loaded | Queue, *, old: Queue | None = None) -> Loaded:
    """Return ``obj`` (a manifest, loaded manifest or Queue) defaulted and valid.

    Raises ``AdmissionError`` listing every violation; nothing is written.
    """
    if isinstance(obj, Queue):
        loaded = Loaded(QueueKind(), obj)
    elif isinstance(obj, Loaded):
        loaded = obj
    else:
        try:
            loaded = QueueKind().load(obj)
        except ManifestError as exc:
            causes = Causes()
            causes.invalid(exc.field, exc.message)
            causes.raise_if_any(kind="Queue")
            raise
    default_queue(loaded.instance)
    validate_queue(loaded.instance, old=old).raise_if_any(kind="Queue", name=loaded.instance.name)
    return loaded


def admit_queue_delete(queue: Queue) -> None:
    """Raise ``AdmissionError`` unless ``queue`` may be deleted."""
    validate_queue_delete(queue).raise_if_any(kind="Queue", name=queue.name)
