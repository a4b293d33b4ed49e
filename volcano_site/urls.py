"""URL map: the admin now; the console pages and the Kubernetes-style API mount here later."""

from __future__ import annotations

from django.contrib import admin
from django.urls import URLPattern, URLResolver, path
from django.views.generic import RedirectView

admin.site.site_header = "Volcano console"
admin.site.site_title = "Volcano console"
admin.site.index_title = "Cluster objects"

urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    # Until the console pages exist, the front door is the admin.
    path("", RedirectView.as_view(pattern_name="admin:index", permanent=False), name="home"),
]
