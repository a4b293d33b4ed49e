"""Kubernetes paths of the scheduler configuration (scheduler.volcano.sh/v1alpha1)."""

from __future__ import annotations

from django.urls import URLPattern, path

from scheduler.api import views

_CONF = "apis/scheduler.volcano.sh/v1alpha1/schedulerconfigurations"

urlpatterns: list[URLPattern] = [
    path(_CONF, views.ConfigurationListView.as_view(), name="schedulerconfigurations-list"),
    path(
        f"{_CONF}/<str:name>",
        views.ConfigurationItemView.as_view(),
        name="schedulerconfigurations-detail",
    ),
    path(
        f"{_CONF}/<str:name>/activate",
        views.ConfigurationActivateView.as_view(),
        name="schedulerconfigurations-activate",
    ),
]
