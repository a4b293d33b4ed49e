"""The console's workflow pages: flows with their DAGs, and cron jobs."""

from __future__ import annotations

from django.urls import URLPattern, path

from flow import views

app_name = "flow"

urlpatterns: list[URLPattern] = [
    path("workflows/", views.workflow_list, name="flow_list"),
    path(
        "workflows/templates/<str:namespace>/<str:name>/",
        views.template_detail,
        name="jobtemplate_detail",
    ),
    path("workflows/<str:namespace>/<str:name>/", views.flow_detail, name="flow_detail"),
    path("workflows/<str:namespace>/<str:name>/delete/", views.flow_delete, name="flow_delete"),
    path("cronjobs/", views.cronjob_list, name="cronjob_list"),
    path("cronjobs/<str:namespace>/<str:name>/", views.cronjob_detail, name="cronjob_detail"),
    path(
        "cronjobs/<str:namespace>/<str:name>/action/", views.cronjob_action, name="cronjob_action"
    ),
]
