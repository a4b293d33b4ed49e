"""Websocket URL map: each app contributes its consumers' routes here (Channels' URLRouter)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver

from console.routing import websocket_urlpatterns as console_routes

websocket_urlpatterns: list[URLPattern | URLResolver] = [*console_routes]
