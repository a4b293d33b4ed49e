"""The scheduler configuration as a manifest kind.

The configuration travels the way Volcano ships it: a ConfigMap whose
``volcano-scheduler.conf`` key holds the conf text, or the bare ``.conf`` text
itself. Applying one stores a new version and makes it the active one (unless it
is the active text already); earlier versions stay for history and rollback.
"""

from __future__ import annotations

from typing import Any, ClassVar

from apis.errors import ManifestError
from apis.wire import Fields, Manifest
from kube.manifest_kinds import Kind, Loaded
from scheduler.conf_text import conf_text_error
from scheduler.models import SchedulerConfiguration
from scheduler.services import scheduler_conf_create

__all__ = ["CONF_KEY", "SchedulerConfigurationKind", "load_conf_text"]

CONF_KEY = "volcano-scheduler.conf"
CONF_MAP_NAME = "volcano-scheduler-configmap"
CONF_MAP_NAMESPACE = "volcano-system"


class SchedulerConfigurationKind(Kind):
    """The scheduler configuration as Volcano's ConfigMap (``data.volcano-scheduler.conf``)."""

    api_version = "v1"
    kind = "ConfigMap"
    resource = "schedulerconfiguration"
    model = SchedulerConfiguration
    # The row keeps no namespace (``read_metadata``): no bundle namespace to create for it.
    namespaced: ClassVar[bool] = False
    wire_paths: ClassVar[dict[str, str]] = {"text": f"data.{CONF_KEY}"}

    def read_metadata(self, meta: Fields, instance: Any) -> None:
        # The ConfigMap's name and place are Volcano's deployment detail: read, not kept.
        meta.string("name", required=True)
        meta.string("namespace")
        meta.ignore(
            "labels", "annotations", "uid", "resourceVersion", "creationTimestamp", "generation"
        )
        meta.ignore("managedFields", "selfLink")

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        data = doc.obj("data")
        loaded.instance.text = data.string(CONF_KEY, required=True)
        if error := conf_text_error(loaded.instance.text):
            raise data.error(CONF_KEY, error)
        data.done()

    def write_metadata(self, instance: Any) -> Manifest:
        return {"name": CONF_MAP_NAME, "namespace": CONF_MAP_NAMESPACE}

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        return {"data": {CONF_KEY: instance.text}}

    def name_of(self, instance: Any) -> str:
        return f"v{instance.version}" if instance.version else "new"

    def apply(self, loaded: Loaded) -> str:
        """Store the text as a new active version, unless it already is the active text."""
        text = loaded.instance.text
        active = SchedulerConfiguration.objects.select_for_update().filter(is_active=True).first()
        if active is not None and active.text == text:
            loaded.instance = active
            return "unchanged"
        self.validate(SchedulerConfiguration(text=text, version=1))
        loaded.instance = scheduler_conf_create(
            text=text, comment="applied from a manifest", activate=True
        )
        return "created"


def load_conf_text(text: str) -> Loaded:
    """Return bare volcano-scheduler.conf ``text`` as a loaded (unsaved) configuration.

    Raises ``ManifestError`` with the conf's own field path when the engine refuses it.
    """
    if error := conf_text_error(text):
        field, _, message = error.partition(": ")
        raise ManifestError(field, message) if message else ManifestError("", error)
    return Loaded(SchedulerConfigurationKind(), SchedulerConfiguration(text=text))
