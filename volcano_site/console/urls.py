"""The console's own URLs: the Overview at ``/``."""

from __future__ import annotations

from django.urls import URLPattern, path

from volcano_site.console import views

app_name = "console"

urlpatterns: list[URLPattern] = [path("", views.overview, name="overview")]
