"""Discovery: ``/version``, ``/api``, ``/api/v1``, ``/apis`` and ``/apis/<group>/<version>``.

This is how kubectl and client libraries map ``vcjob`` to
``jobs.batch.volcano.sh/v1alpha1`` before they make any call. Current clients
first ask for the aggregated format (``as=APIGroupDiscoveryList``); this server
answers the legacy lists with ``Content-Type: application/json``, which
client-go reads as "not aggregated" and then fetches each group version
(the documented fallback). Protobuf is never offered.

What is listed is the registry's: each app's kinds (with their subresources), then the
resources apps serve with their own views (``registry.register_api_resource``: the
scheduler configuration, metrics.k8s.io, the audit log).
"""

from __future__ import annotations

import platform
from typing import Any

import django
from django.http import HttpResponseBase, JsonResponse
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request

from kube import registry
from kube.catalogue import Entry, group_versions
from kube.status import KubeError
from kube.views import KubeAPIView

__all__ = [
    "APIGroupListView",
    "APIResourceListView",
    "APIVersionsView",
    "VersionView",
    "api_resources",
]

# What ``kubectl version`` shows for the server: the Kubernetes API level this server follows.
SERVER_VERSION = {"major": "1", "minor": "32", "gitVersion": "v1.32.0-volcano-console"}


def _json(body: dict[str, Any]) -> JsonResponse:
    return JsonResponse(body, json_dumps_params={"separators": (",", ":")})


def api_resources(entries: list[Entry]) -> list[dict[str, Any]]:
    """Return the ``APIResource`` entries (with subresources) of one group version."""
    found: list[dict[str, Any]] = []
    for entry in entries:
        resource = entry.resource
        item: dict[str, Any] = {
            "name": resource.plural,
            "singularName": entry.singular,
            "namespaced": resource.namespaced,
            "kind": resource.kind,
            "verbs": list(entry.verbs),
        }
        if entry.short_names:
            item["shortNames"] = list(entry.short_names)
        if entry.categories:
            item["categories"] = list(entry.categories)
        found.append(item)
        for sub in entry.subresources:
            item = {
                "name": f"{resource.plural}/{sub}",
                "singularName": "",
                "namespaced": resource.namespaced,
                "kind": "Pod" if sub == "log" else resource.kind,
                "verbs": ["get"] if sub == "log" else ["get", "patch", "update"],
            }
            if sub == "eviction":
                # Created as another group's kind, which discovery names (kubectl drain
                # evicts only when it finds pods/eviction with its group and version).
                item.update(group="policy", version="v1", kind="Eviction", verbs=["create"])
            found.append(item)
    return found


def _groups() -> dict[str, list[str]]:
    """Return each named group's versions (the core group excluded)."""
    groups: dict[str, list[str]] = {}
    # The kinds' groups first, then those only apps' own views serve.
    for group_version in [*group_versions(), *registry.api_resources()]:
        if "/" in group_version:
            group, version = group_version.split("/", 1)
            groups.setdefault(group, [])
            if version not in groups[group]:
                groups[group].append(version)
    return groups


class DiscoveryView(KubeAPIView):
    """Any signed-in client may read discovery (Kubernetes' ``system:discovery``)."""

    permission_classes = [IsAuthenticated]  # noqa: RUF012
    schema = None  # described by itself (discovery), not in drf-spectacular's schema
    http_method_names = ["get", "head", "options"]  # noqa: RUF012


class VersionView(DiscoveryView):
    """``GET /version``: public, as in Kubernetes (``system:public-info-viewer``)."""

    permission_classes = [AllowAny]  # noqa: RUF012

    def get(self, request: Request) -> HttpResponseBase:
        return _json(
            {
                **SERVER_VERSION,
                "gitCommit": "",
                "gitTreeState": "clean",
                "buildDate": "",
                "goVersion": f"python{platform.python_version()} django{django.get_version()}",
                "compiler": "cpython",
                "platform": f"{platform.system().lower()}/{platform.machine()}",
            }
        )


class APIVersionsView(DiscoveryView):
    """``GET /api``: the core group's versions."""

    def get(self, request: Request) -> HttpResponseBase:
        address = request.get_host()
        return _json(
            {
                "kind": "APIVersions",
                "versions": ["v1"],
                "serverAddressByClientCIDRs": [
                    {"clientCIDR": "0.0.0.0/0", "serverAddress": address}
                ],
            }
        )


class APIGroupListView(DiscoveryView):
    """``GET /apis``: every named group with its versions."""

    def get(self, request: Request) -> HttpResponseBase:
        groups = []
        for group, versions in _groups().items():
            listed = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
            groups.append({"name": group, "versions": listed, "preferredVersion": listed[0]})
        return _json({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})


class APIResourceListView(DiscoveryView):
    """``GET /api/v1`` and ``GET /apis/<group>/<version>``: the resources served there."""

    def get(self, request: Request, group: str = "", version: str = "v1") -> HttpResponseBase:
        group_version = f"{group}/{version}" if group else version
        entries = group_versions().get(group_version)
        extra = [dict(item) for item in registry.api_resources().get(group_version, [])]
        if entries is None and not extra:
            raise KubeError(404, "the server could not find the requested resource")
        return _json(
            {
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": group_version,
                "resources": api_resources(entries or []) + extra,
            }
        )
