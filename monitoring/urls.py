"""The Metrics pages: the dashboard and each chart's data (JSON or CSV); a queue's share over
time (a fragment of the queue's page)."""

from __future__ import annotations

from django.urls import URLPattern, path

from monitoring import queue_history, views

app_name = "monitoring"

urlpatterns: list[URLPattern] = [
    path("monitoring/", views.dashboard, name="dashboard"),
    path("monitoring/charts/<slug:name>/", views.chart_data, name="chart_data"),
    path("queues/<str:name>/history/", queue_history.queue_history, name="queue_history"),
]
