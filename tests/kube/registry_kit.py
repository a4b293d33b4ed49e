"""A kind no app serves, for tests of the registry: ``Widget`` in ``example.volcano.test/v1``.

Widgets are stored in the priority classes' table (a kind needs a model, and a test may not
add tables), read and written as ``{"value": n}``. ``ROOT_URLCONF = "tests.kube.registry_kit"``
routes them at ``/apis/example.volcano.test/v1/widgets`` beside the site's own paths;
``registry_restored`` puts the registry back as it was, whatever a test registered or took
away.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.urls import URLPattern, URLResolver, include, path

from core.manifests.priority_class import PriorityClassKind
from kube import registry
from kube.registry import KUBE_AGE, Column, Entry
from kube.resources import Resource
from kube.routes import resource_urls
from kube.serializers import KubeObjectSerializer, list_serializer

__all__ = ["GROUP", "WIDGETS", "WIDGETS_PATH", "WIDGET_ENTRY", "registry_restored", "urlpatterns"]

GROUP = "example.volcano.test"
WIDGETS_PATH = f"/apis/{GROUP}/v1/widgets"


class WidgetKind(PriorityClassKind):
    """``example.volcano.test/v1`` Widget: a priority class under another name."""

    api_version = f"{GROUP}/v1"
    kind = "Widget"
    resource = f"widget.{GROUP}"


WIDGETS = Resource(
    manifest=WidgetKind(), plural="widgets", group=GROUP, version="v1", access="widgets"
)
WIDGET_ENTRY = Entry(
    WIDGETS, "widget", ("wd",), columns=(Column("Value", "integer", ".value"), KUBE_AGE)
)

urlpatterns: list[URLPattern | URLResolver] = [
    *resource_urls(WIDGETS, KubeObjectSerializer, list_serializer(KubeObjectSerializer, "W")),
    path("", include("volcano_site.urls")),
]


@contextmanager
def registry_restored(*access_names: str) -> Iterator[None]:
    """Put every served kind back afterwards, in its place, and withdraw ``access_names``."""
    served = registry.entries()
    try:
        yield
    finally:
        for entry in registry.entries():
            registry.unregister_kind(entry.resource.group, entry.resource.plural)
        for entry in served:
            registry.register_kind(entry)
        for name in access_names:
            registry.unregister_access(name)
