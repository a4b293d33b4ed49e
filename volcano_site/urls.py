"""URL map: the admin, login and profile, the Kubernetes-style API and the console pages."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import URLPattern, URLResolver, include, path, re_path

from kube.metrics import apiserver_metrics_view
from scheduler.metrics import metrics_view
from scheduler.metrics_kube_state import kube_state_view
from volcano_site.views import overview

admin.site.site_header = "Volcano console"
admin.site.site_title = "Volcano console"
admin.site.index_title = "Cluster objects"

# The admin's pages of the models that moved to other apps (the admin names its URLs after the
# app): an old bookmark lands on the same page at its new address.
MOVED_ADMIN = {
    "jobs/pod": "core/pod",
    "jobs/event": "core/event",
    "jobs/secret": "core/secret",
    "jobs/priorityclass": "core/priorityclass",
    "jobs/podgroup": "queues/podgroup",
    "jobs/pytorchjob": "training/pytorchjob",
    "jobs/tfjob": "training/tfjob",
    "jobs/mpijob": "training/mpijob",
    "scheduler/node": "core/node",
    "kube/namespace": "core/namespace",
}


def moved_admin_page(request: HttpRequest, old: str, rest: str) -> HttpResponsePermanentRedirect:
    """Send a GET of a moved model's old admin address to its new one (query kept)."""
    query = f"?{request.META['QUERY_STRING']}" if request.META.get("QUERY_STRING") else ""
    return HttpResponsePermanentRedirect(f"/admin/{MOVED_ADMIN[old]}/{rest}{query}")


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """``/favicon.ico``, which browsers ask for on every page (JSON ones too): the console's."""
    return HttpResponsePermanentRedirect(static("console/favicon.svg"))


urlpatterns: list[URLPattern | URLResolver] = [
    path("favicon.ico", favicon, name="favicon"),
    re_path(
        r"^admin/(?P<old>" + "|".join(MOVED_ADMIN) + r")/(?P<rest>.*)$",
        moved_admin_page,
        name="moved_admin_page",
    ),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    # Prometheus scrapes Volcano's volcano_* series here (no login, like Volcano's :8080).
    path("metrics", metrics_view, name="metrics"),
    # kube-state-metrics' series for our nodes and pods (Volcano's dashboards read them).
    path("metrics/kube-state-metrics", kube_state_view, name="metrics_kube_state"),
    # The API server's request counts and latencies, as kube-apiserver exports them.
    path("metrics/apiserver", apiserver_metrics_view, name="metrics_apiserver"),
    # The Kubernetes-style REST API (/api/v1/..., /apis/...), its schema and docs.
    path("", include("volcano_site.api_urls")),
    # The console: each app owns its pages (the nav lights an entry up once its URL exists).
    path("", overview, name="overview"),
    path("", include("console.urls")),
    path("", include("jobs.urls")),
    path("", include("training.urls")),
    path("", include("flow.urls")),
    path("", include("queues.urls")),
    path("", include("scheduler.urls")),
    path("", include("monitoring.urls")),
]

# A server error under /api and /apis is a Status kubectl can print; the console keeps Django's.
handler500 = "kube.fallbacks.server_error"
