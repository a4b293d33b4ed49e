"""Queue manifests (scheduling.volcano.sh/v1beta1), read and written in Volcano's shape.

``spec.guarantee`` nests its list under ``resource`` as Volcano's API does;
``status.state`` from a manifest is used when the queue is created (Open or
Closed); afterwards the state changes only through open/close (Volcano's
OpenQueue/CloseQueue commands), so re-applying a file never reopens a queue.
The other status fields are the controllers' and only round-trip.
"""

from __future__ import annotations

from typing import Any, ClassVar

from apis.wire import Fields, Manifest, format_resources
from kube.manifest_kinds import Kind, Loaded
from queues.manifests.affinity import read_affinity
from queues.models import DequeueStrategy, Queue, QueueState

__all__ = ["QueueKind"]

_STATUS_COUNTS = ("pending", "inqueue", "running", "completed", "unknown")


class QueueKind(Kind):
    """``scheduling.volcano.sh/v1beta1`` Queue."""

    api_version = "scheduling.volcano.sh/v1beta1"
    kind = "Queue"
    resource = "queue.scheduling.volcano.sh"
    model = Queue
    namespaced = False
    name_is_label = True
    spec_fields = (
        "weight",
        "capability",
        "deserved",
        "guarantee",
        "reclaimable",
        "parent",
        "priority",
        "dequeue_strategy",
        "affinity",
    )
    wire_paths: ClassVar[dict[str, str]] = {
        "name": "metadata.name",
        "weight": "spec.weight",
        "parent": "spec.parent",
        "priority": "spec.priority",
        "state": "status.state",
        "dequeue_strategy": "spec.dequeueStrategy",
    }

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        queue: Queue = loaded.instance
        spec = doc.obj("spec")
        queue.weight = spec.integer("weight", 1, minimum=1)
        queue.capability = spec.resources("capability")
        queue.deserved = spec.resources("deserved")
        guarantee = spec.obj("guarantee")
        queue.guarantee = guarantee.resources("resource")
        guarantee.done()
        queue.reclaimable = spec.boolean("reclaimable", True)
        queue.parent = spec.string("parent")
        queue.priority = spec.integer("priority", 0, minimum=0)
        queue.dequeue_strategy = spec.string("dequeueStrategy", DequeueStrategy.TRAVERSE)
        if queue.dequeue_strategy not in DequeueStrategy.values:
            raise spec.error(
                "dequeueStrategy", f"unsupported value {queue.dequeue_strategy!r} (fifo, traverse)"
            )
        queue.affinity = read_affinity(spec)
        spec.done()

        status = doc.obj("status")
        queue.state = status.string("state", QueueState.OPEN)
        if queue.state not in QueueState.values:
            allowed = ", ".join(QueueState.values)
            raise status.error("state", f"unsupported value {queue.state!r} ({allowed})")
        for name in _STATUS_COUNTS:
            setattr(queue, name, status.integer(name, 0, minimum=0))
        queue.allocated = status.resources("allocated")
        status.ignore("reservation")
        status.done()

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Fill Volcano's queue defaults and refuse what its webhook refuses."""
        # Admission reads manifests with this kind: the two modules need each other.
        from queues.admission import admit_queue

        admit_queue(loaded, old=existing)

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        queue: Queue = instance
        spec: Manifest = {"weight": queue.weight, "reclaimable": queue.reclaimable}
        if queue.capability:
            spec["capability"] = format_resources(queue.capability)
        if queue.deserved:
            spec["deserved"] = format_resources(queue.deserved)
        if queue.guarantee:
            spec["guarantee"] = {"resource": format_resources(queue.guarantee)}
        if queue.parent:
            spec["parent"] = queue.parent
        if queue.priority:
            spec["priority"] = queue.priority
        if queue.dequeue_strategy != DequeueStrategy.TRAVERSE:
            spec["dequeueStrategy"] = queue.dequeue_strategy
        if queue.affinity is not None:
            spec["affinity"] = queue.affinity
        status: Manifest = {"state": queue.state}
        for name in _STATUS_COUNTS:
            if count := getattr(queue, name):
                status[name] = count
        if queue.allocated:
            status["allocated"] = format_resources(queue.allocated)
        return {"spec": spec, "status": status}
