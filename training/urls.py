"""The console's pages of Kubeflow training jobs: the jobs list's section of them, a job's page
and its deletion."""

from __future__ import annotations

from django.urls import URLPattern, path

from training import views

app_name = "training"

urlpatterns: list[URLPattern] = [
    path("kubeflow/", views.training_list, name="training_list"),
    path(
        "kubeflow/<str:plural>/<str:namespace>/<str:name>/",
        views.training_detail,
        name="training_detail",
    ),
    path(
        "kubeflow/<str:plural>/<str:namespace>/<str:name>/delete/",
        views.training_delete,
        name="training_delete",
    ),
]
