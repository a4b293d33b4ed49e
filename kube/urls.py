"""Paths Kubernetes clients read before any resource: version, discovery, OpenAPI."""

from __future__ import annotations

from django.urls import URLPattern, path, re_path

from kube import discovery, openapi

__all__ = ["urlpatterns"]

urlpatterns: list[URLPattern] = [
    path("version", discovery.VersionView.as_view(), name="kube-version"),
    path("version/", discovery.VersionView.as_view()),
    path("api", discovery.APIVersionsView.as_view(), name="kube-api"),
    path("api/", discovery.APIVersionsView.as_view()),
    path("api/v1", discovery.APIResourceListView.as_view(), name="kube-api-v1"),
    path("api/v1/", discovery.APIResourceListView.as_view()),
    path("apis", discovery.APIGroupListView.as_view(), name="kube-apis"),
    path("apis/", discovery.APIGroupListView.as_view()),
    path(
        "apis/<str:group>/<str:version>",
        discovery.APIResourceListView.as_view(),
        name="kube-group-version",
    ),
    path("apis/<str:group>/<str:version>/", discovery.APIResourceListView.as_view()),
    path("openapi/v2", openapi.OpenAPIV2View.as_view(), name="kube-openapi-v2"),
    path("openapi/v3", openapi.OpenAPIV3IndexView.as_view(), name="kube-openapi-v3"),
    re_path(r"^openapi/v3/(?P<path>.+)$", openapi.OpenAPIV3DocumentView.as_view()),
]
