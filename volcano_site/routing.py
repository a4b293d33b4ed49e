"""Websocket URL map: each app contributes its consumers' routes here (Channels' URLRouter)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver

websocket_urlpatterns: list[URLPattern | URLResolver] = []
