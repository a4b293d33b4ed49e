"""The scheduler app's console URLs: the Nodes pages (list and heat map, a node, its actions)."""

from __future__ import annotations

from django.urls import URLPattern, path

from scheduler.views import nodes

app_name = "scheduler"

urlpatterns: list[URLPattern] = [
    path("nodes/", nodes.node_list, name="node_list"),
    path("nodes/<str:name>/", nodes.node_detail, name="node_detail"),
    path("nodes/<str:name>/action/", nodes.node_action, name="node_action"),
]
