"""The console's websocket route (mounted by ``volcano_site.routing``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from console.consumers import LiveConsumer

websocket_urlpatterns: list[URLPattern] = [path("ws/live/", LiveConsumer.as_asgi())]
