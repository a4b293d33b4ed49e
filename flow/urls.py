"""The console's workflow pages: flows with their DAGs, and cron jobs."""

from __future__ import annotations

from django.urls import URLPattern

app_name = "flow"

urlpatterns: list[URLPattern] = []
