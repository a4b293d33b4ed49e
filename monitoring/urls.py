"""The Metrics pages: the dashboard and each chart's data (JSON or CSV)."""

from __future__ import annotations

from django.urls import URLPattern, path

from monitoring import views

app_name = "monitoring"

urlpatterns: list[URLPattern] = [
    path("monitoring/", views.dashboard, name="dashboard"),
    path("monitoring/charts/<slug:name>/", views.chart_data, name="chart_data"),
]
