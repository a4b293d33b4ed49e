"""Event manifests (v1): the involved object, type, reason, message, count and times."""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils import timezone

from apis.wire import Fields, Manifest, format_time
from core.models import Event, EventType
from kube.manifest_kinds import Kind, Loaded

__all__ = ["EventKind"]


class EventKind(Kind):
    """``v1`` Event."""

    api_version = "v1"
    kind = "Event"
    resource = "event"
    model = Event
    meta_fields = ()
    spec_fields = (
        "involved_kind",
        "involved_namespace",
        "involved_name",
        "involved_uid",
        "type",
        "reason",
        "message",
        "source",
        "count",
        "first_timestamp",
        "last_timestamp",
    )
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name", "type": "type"}

    def read_metadata(self, meta: Fields, instance: Any) -> None:
        # Events carry only a name and namespace of their own; no labels, no uid column.
        instance.name = meta.string("name", required=True)
        instance.namespace = meta.string("namespace") or "default"
        meta.ignore("uid", "resourceVersion", "creationTimestamp", "managedFields")

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        event: Event = loaded.instance
        involved = doc.obj("involvedObject")
        event.involved_kind = involved.string("kind", required=True)
        event.involved_namespace = involved.string("namespace")
        event.involved_name = involved.string("name", required=True)
        event.involved_uid = involved.uid("uid")
        involved.ignore("apiVersion", "resourceVersion", "fieldPath")
        involved.done()
        event.type = doc.string("type", EventType.NORMAL)
        if event.type not in EventType.values:
            raise doc.error("type", f"unsupported value {event.type!r} (Normal, Warning)")
        event.reason = doc.string("reason", required=True)
        event.message = doc.string("message")
        source = doc.obj("source")
        event.source = source.string("component")
        source.ignore("host")
        source.done()
        event.count = doc.integer("count", 1, minimum=1)
        now = timezone.now().replace(microsecond=0)
        event.first_timestamp = doc.time("firstTimestamp") or now
        event.last_timestamp = doc.time("lastTimestamp") or event.first_timestamp

    def write_metadata(self, instance: Any) -> Manifest:
        return {"name": instance.name, "namespace": instance.namespace}

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        event: Event = instance
        involved: Manifest = {"kind": event.involved_kind, "name": event.involved_name}
        if event.involved_namespace:
            involved["namespace"] = event.involved_namespace
        if event.involved_uid is not None:
            involved["uid"] = str(event.involved_uid)
        body: Manifest = {
            "involvedObject": involved,
            "type": event.type,
            "reason": event.reason,
            "count": event.count,
            "firstTimestamp": format_time(event.first_timestamp),
            "lastTimestamp": format_time(event.last_timestamp),
        }
        if event.message:
            body["message"] = event.message
        if event.source:
            body["source"] = {"component": event.source}
        return body
