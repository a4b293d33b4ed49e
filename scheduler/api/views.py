"""The scheduler configuration as a versioned resource.

The configuration lives at ``/apis/scheduler.volcano.sh/v1alpha1/schedulerconfigurations``:

- ``GET`` the collection: every version, newest first;
- ``POST`` it: store a new version (not yet active);
- ``GET .../active`` or ``.../v3``: one version;
- ``PUT .../active``: replace the active configuration, i.e. store a new version and
  activate it (earlier versions stay for history and rollback);
- ``PATCH .../active`` (a merge or JSON patch of the active one, or a server-side apply):
  the same as a ``PUT`` of the patched configuration, as kube-apiserver serves a patch of
  every resource it updates;
- ``POST .../v3/activate``: make an earlier (or later) version the active one.

Bodies are a ``SchedulerConfiguration`` (``spec.conf`` holds the
volcano-scheduler.conf text) or Volcano's own ConfigMap
(``data["volcano-scheduler.conf"]``); a conf the engine refuses, or a field the kind does not
have, is 422 naming its field (kubectl leaves that check to the server: the OpenAPI documents
list ``fieldValidation`` on the PATCH). Operators' changes are audited by the services.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apis.wire import format_time
from kube.bodies import (
    APPLY_PATCH,
    JSON_PATCH,
    MERGE_PATCH,
    apply_json_patch,
    apply_merge_patch,
    media_type,
)
from kube.routes import ERRORS, WRITE_PARAMETERS
from kube.status import Cause, KubeError
from kube.views import KubeAPIView, body, dry_run
from scheduler.api.serializers import (
    SchedulerConfigurationListSerializer,
    SchedulerConfigurationSerializer,
)
from scheduler.conf_text import conf_text_error
from scheduler.manifests import CONF_KEY
from scheduler.models import SchedulerConfiguration
from scheduler.services import scheduler_conf_activate, scheduler_conf_create

__all__ = ["ConfigurationActivateView", "ConfigurationItemView", "ConfigurationListView"]

GROUP = "scheduler.volcano.sh"
API_VERSION = f"{GROUP}/v1alpha1"
KIND = "SchedulerConfiguration"
PLURAL = f"schedulerconfigurations.{GROUP}"
# The fields a SchedulerConfiguration has (others are refused, naming them).
_FIELDS = frozenset({"apiVersion", "kind", "metadata", "spec", "status"})
_SPEC_FIELDS = frozenset({"conf", "comment"})


def _created(configuration: SchedulerConfiguration) -> dt.datetime:
    created: dt.datetime | None = configuration.created_at
    return created if created is not None else timezone.now()


def render_configuration(configuration: SchedulerConfiguration) -> dict[str, Any]:
    """Return one stored version as the API shows it."""
    status: dict[str, Any] = {
        "version": configuration.version,
        "active": configuration.is_active,
    }
    if configuration.author is not None:
        status["author"] = configuration.author.get_username()
    spec = {"conf": configuration.text}
    if configuration.comment:
        spec["comment"] = configuration.comment
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {
            "name": f"v{configuration.version}",
            "resourceVersion": str(configuration.version),
            # A dry run's version has no row yet: it shows the time it would be stored.
            "creationTimestamp": format_time(_created(configuration)),
        },
        "spec": spec,
        "status": status,
    }


def read_conf(document: Any) -> tuple[str, str]:
    """Return (conf text, comment) of a SchedulerConfiguration or ConfigMap body; 422 if bad."""
    if not isinstance(document, dict):
        raise KubeError(400, f"expected a {KIND} object")
    if document.get("kind") == "ConfigMap":
        data = document.get("data")
        text: Any = data.get(CONF_KEY) if isinstance(data, dict) else None
        field, comment = f"data.{CONF_KEY}", ""
    else:
        if (
            document.get("kind", KIND) != KIND
            or document.get("apiVersion", API_VERSION) != API_VERSION
        ):
            raise KubeError(400, f"expected kind {KIND} of {API_VERSION}, or a ConfigMap")
        spec = document.get("spec")
        spec = spec if isinstance(spec, dict) else {}
        unknown = sorted(document.keys() - _FIELDS) + [
            f"spec.{key}" for key in sorted(spec.keys() - _SPEC_FIELDS)
        ]
        if unknown:
            raise _invalid([Cause(key, "unknown field") for key in unknown])
        text, field = spec.get("conf"), "spec.conf"
        comment = str(spec.get("comment") or "")
    if not isinstance(text, str) or not text.strip():
        raise _invalid([Cause(field, "Required value", "FieldValueRequired")])
    if error := conf_text_error(text):
        raise _invalid([Cause(field, error)])
    return text, str(comment)[:500]


def _invalid(causes: list[Cause]) -> KubeError:
    message = "; ".join(f"{c.field}: {c.message}" for c in causes)
    return KubeError(422, f"{KIND} is invalid: {message}", kind=KIND, group=GROUP, causes=causes)


def _find(name: str) -> SchedulerConfiguration:
    queryset = SchedulerConfiguration.objects.select_related("author")
    if name == "active":
        found = queryset.filter(is_active=True).first()
    elif name.startswith("v") and name[1:].isdigit():
        found = queryset.filter(version=int(name[1:])).first()
    else:
        found = None
    if found is None:
        raise KubeError(404, f'{PLURAL} "{name}" not found', kind=PLURAL, name=name, group=GROUP)
    return found


class ConfigurationView(KubeAPIView):
    """Base: the roles table's ``schedulerconfigurations`` entry guards every call."""

    access_name = "schedulerconfigurations"


class ConfigurationListView(ConfigurationView):
    """List versions; store a new (inactive) one."""

    @extend_schema(
        operation_id="listSchedulerConfiguration",
        summary="List scheduler configuration versions",
        responses={200: SchedulerConfigurationListSerializer, **ERRORS},
        tags=[PLURAL],
    )
    def get(self, request: Request) -> Response:
        versions = list(
            SchedulerConfiguration.objects.select_related("author").order_by("-version")
        )
        newest = versions[0].version if versions else 0
        return Response(
            {
                "apiVersion": API_VERSION,
                "kind": f"{KIND}List",
                "metadata": {"resourceVersion": str(newest)},
                "items": [render_configuration(item) for item in versions],
            }
        )

    @extend_schema(
        operation_id="createSchedulerConfiguration",
        summary="Store a new scheduler configuration version (not active yet)",
        request={
            "application/json": SchedulerConfigurationSerializer,
            "application/yaml": SchedulerConfigurationSerializer,
        },
        parameters=WRITE_PARAMETERS,
        responses={201: SchedulerConfigurationSerializer, **ERRORS},
        tags=[PLURAL],
    )
    def post(self, request: Request) -> Response:
        text, comment = read_conf(body(request))
        if dry_run(request):
            return Response(
                render_configuration(SchedulerConfiguration(text=text, comment=comment)), status=201
            )
        created = scheduler_conf_create(text=text, comment=comment, author=request.user)
        return Response(render_configuration(created), status=201)


class ConfigurationItemView(ConfigurationView):
    """Read one version; ``PUT .../active`` replaces the active configuration."""

    @extend_schema(
        operation_id="readSchedulerConfiguration",
        summary="Read a scheduler configuration version (name: active or v<N>)",
        responses={200: SchedulerConfigurationSerializer, **ERRORS},
        tags=[PLURAL],
    )
    def get(self, request: Request, name: str) -> Response:
        return Response(render_configuration(_find(name)))

    @extend_schema(
        operation_id="replaceSchedulerConfiguration",
        summary="Replace the active scheduler configuration (a new version, activated)",
        request={
            "application/json": SchedulerConfigurationSerializer,
            "application/yaml": SchedulerConfigurationSerializer,
        },
        parameters=WRITE_PARAMETERS,
        responses={200: SchedulerConfigurationSerializer, **ERRORS},
        tags=[PLURAL],
    )
    def put(self, request: Request, name: str) -> Response:
        if name != "active":
            raise KubeError(405, "stored versions never change; PUT .../active stores a new one")
        return self._replace(request, body(request))

    @extend_schema(
        operation_id="patchSchedulerConfiguration",
        summary="Patch the active scheduler configuration (a new version, activated)",
        request={MERGE_PATCH: SchedulerConfigurationSerializer},
        parameters=WRITE_PARAMETERS,
        responses={200: SchedulerConfigurationSerializer, **ERRORS},
        tags=[PLURAL],
    )
    def patch(self, request: Request, name: str) -> Response:
        if name != "active":
            raise KubeError(405, "stored versions never change; PATCH .../active stores a new one")
        kind = media_type(request.content_type)
        if kind not in (MERGE_PATCH, JSON_PATCH, APPLY_PATCH):
            # As kube-apiserver answers for a kind without Go struct tags (a custom resource).
            raise KubeError(
                415,
                f"the body of the request was in an unknown format - accepted media types "
                f"include: {JSON_PATCH}, {MERGE_PATCH}, {APPLY_PATCH}",
            )
        if kind == APPLY_PATCH and not request.query_params.get("fieldManager"):
            raise KubeError(400, "PATCH with application/apply-patch+yaml requires fieldManager")
        patch = body(request)
        with transaction.atomic():
            current = render_configuration(_find("active"))
            if kind == JSON_PATCH:
                return self._replace(request, apply_json_patch(current, patch))
            return self._replace(request, apply_merge_patch(current, patch))

    def _replace(self, request: Request, document: Any) -> Response:
        """Store ``document`` as the new active configuration (unchanged text: nothing)."""
        text, comment = read_conf(document)
        if dry_run(request):
            return Response(
                render_configuration(SchedulerConfiguration(text=text, comment=comment))
            )
        with transaction.atomic():
            active = SchedulerConfiguration.objects.filter(is_active=True).first()
            if active is not None and active.text == text:
                return Response(render_configuration(_find("active")))
            created = scheduler_conf_create(
                text=text, comment=comment, author=request.user, activate=True
            )
        return Response(render_configuration(_find(f"v{created.version}")))


class ConfigurationActivateView(ConfigurationView):
    """``POST .../v<N>/activate``: make that version the active one (rollback, roll forward)."""

    http_method_names = ["post", "options"]  # noqa: RUF012

    @extend_schema(
        operation_id="activateSchedulerConfiguration",
        summary="Activate a stored scheduler configuration version",
        request=None,
        parameters=WRITE_PARAMETERS,
        responses={200: SchedulerConfigurationSerializer, **ERRORS},
        tags=[PLURAL],
    )
    def post(self, request: Request, name: str) -> Response:
        with transaction.atomic():
            configuration = _find(name)
            if not dry_run(request) and not configuration.is_active:
                scheduler_conf_activate(configuration=configuration)
        return Response(render_configuration(_find(f"v{configuration.version}")))
