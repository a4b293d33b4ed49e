"""URL map: the admin, login and profile, the Kubernetes-style API; the console pages later."""

from __future__ import annotations

from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from django.views.generic import RedirectView

from scheduler.metrics import metrics_view

admin.site.site_header = "Volcano console"
admin.site.site_title = "Volcano console"
admin.site.index_title = "Cluster objects"

urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    path("accounts/", include("volcano_site.accounts.urls")),
    # Prometheus scrapes Volcano's volcano_* series here (no login, like Volcano's :8080).
    path("metrics", metrics_view, name="metrics"),
    # The Kubernetes-style REST API (/api/v1/..., /apis/...), its schema and docs.
    path("", include("volcano_site.api_urls")),
    # Until the console pages exist, the front door is the admin.
    path("", RedirectView.as_view(pattern_name="admin:index", permanent=False), name="home"),
]
