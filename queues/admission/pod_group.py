"""PodGroup admission (``validate_podgroup.go``): a named queue must exist and be Open.

Volcano's PodGroup mutation rewrites queue ``default`` to the namespace's
``scheduling.volcano.sh/queue-name`` annotation; we have no Namespace objects,
so there is nothing to rewrite from. The ``networkTopology`` rule has no field
to apply to here (the manifest loader refuses the field).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apis.errors import ManifestError
from kube.admission_causes import Causes
from kube.manifest_kinds import Loaded
from queues.manifests.pod_group import PodGroupKind
from queues.models import PodGroup, Queue, QueueState

__all__ = ["admit_pod_group", "validate_pod_group"]


def validate_pod_group(group: PodGroup) -> Causes:
    """Return every create-time violation of ``group``."""
    causes = Causes()
    if group.queue:
        queue = Queue.objects.filter(name=group.queue).first()
        if queue is None:
            causes.not_found("spec.queue", f"unable to find queue: {group.queue}")
        elif queue.state != QueueState.OPEN:
            causes.forbidden(
                "spec.queue",
                f"can only submit PodGroup to queue with state `Open`, queue `{group.queue}` "
                f"status is `{queue.state}`",
            )
    if group.min_member < 0:
        causes.invalid("spec.minMember", "must be greater than or equal to 0")
    return causes


def admit_pod_group(
    obj: Mapping[str, Any] | Loaded | PodGroup, *, old: PodGroup | None = None
) -> Loaded:
    """Return ``obj`` as a valid loaded PodGroup; raise ``AdmissionError`` otherwise.

    Volcano validates PodGroups on CREATE only, so an update (``old`` given) is
    not re-checked: a PodGroup in a queue that has since closed can still change.
    """
    if isinstance(obj, PodGroup):
        loaded = Loaded(PodGroupKind(), obj)
    elif isinstance(obj, Loaded):
        loaded = obj
    else:
        try:
            loaded = PodGroupKind().load(obj)
        except ManifestError as exc:
            causes = Causes()
            causes.invalid(exc.field, exc.message)
            causes.raise_if_any(kind="PodGroup")
            raise
    if old is None:
        validate_pod_group(loaded.instance).raise_if_any(kind="PodGroup", name=loaded.instance.name)
    return loaded
