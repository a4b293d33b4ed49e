"""The console's own URLs: the Overview at ``/`` and the audit log."""

from __future__ import annotations

from django.urls import URLPattern, path

from volcano_site.console import audit, views

app_name = "console"

urlpatterns: list[URLPattern] = [
    path("", views.overview, name="overview"),
    path("audit/", audit.audit_log, name="audit"),
]
