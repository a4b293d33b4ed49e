"""URL map: the admin, login and profile, the Kubernetes-style API and the console pages."""

from __future__ import annotations

from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path

from scheduler.metrics import metrics_view
from scheduler.metrics_kube_state import kube_state_view
from volcano_site.kube.metrics import apiserver_metrics_view

admin.site.site_header = "Volcano console"
admin.site.site_title = "Volcano console"
admin.site.index_title = "Cluster objects"

urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    path("accounts/", include("volcano_site.accounts.urls")),
    # Prometheus scrapes Volcano's volcano_* series here (no login, like Volcano's :8080).
    path("metrics", metrics_view, name="metrics"),
    # kube-state-metrics' series for our nodes and pods (Volcano's dashboards read them).
    path("metrics/kube-state-metrics", kube_state_view, name="metrics_kube_state"),
    # The API server's request counts and latencies, as kube-apiserver exports them.
    path("metrics/apiserver", apiserver_metrics_view, name="metrics_apiserver"),
    # The Kubernetes-style REST API (/api/v1/..., /apis/...), its schema and docs.
    path("", include("volcano_site.api_urls")),
    # The console: each app owns its pages (the nav lights an entry up once its URL exists).
    path("", include("volcano_site.console.urls")),
    path("", include("jobs.urls")),
    path("", include("queues.urls")),
    path("", include("scheduler.urls")),
    path("", include("monitoring.urls")),
]

# A server error under /api and /apis is a Status kubectl can print; the console keeps Django's.
handler500 = "volcano_site.kube.fallbacks.server_error"
