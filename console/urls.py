"""The console's own URLs: the audit log (the Overview at ``/`` is the site's own page)."""

from __future__ import annotations

from django.urls import URLPattern, path

from console import audit

app_name = "console"

urlpatterns: list[URLPattern] = [
    path("audit/", audit.audit_log, name="audit"),
]
