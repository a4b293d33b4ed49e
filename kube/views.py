"""Generic views serving any ``Resource`` as the Kubernetes API server does.

Each app's ``api/views.py`` subclasses these with ``resource = ...``; routing
them at Kubernetes paths is all that is left to its ``api/urls.py``.

Who may call is the access control's business (``registry.access_control()``, which
``accounts`` sets): how callers authenticate, the permission that checks the roles, and the
namespaces a caller may list. Without one, nobody is let in. Who acts is kept by
``kube.actor`` for the audit log.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from django.core.exceptions import RequestDataTooBig
from django.db import transaction
from django.http import HttpRequest, HttpResponseBase
from rest_framework.authentication import BaseAuthentication
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import BasePermission
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kube import registry
from kube.actor import acting_as, set_actor
from kube.bodies import (
    APPLY_PATCH,
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    max_body_bytes,
    media_type,
    parse_document,
)
from kube.changes import latest_resource_version
from kube.listing import ListQuery, filtered, list_objects
from kube.lock_order import retry_transient
from kube.render import render, render_list
from kube.resources import Resource
from kube.selectors import parse_field_selector, parse_label_selector
from kube.status import KubeError, exception_handler
from kube.store import object_create, object_delete, object_patch, object_replace
from kube.tables import table, wants_table
from kube.watch import watch_response

__all__ = ["CollectionView", "ItemView", "KubeAPIView", "StatusView"]


class JSONOnly(BaseContentNegotiation):
    """Always answer JSON: clients that ask for protobuf or a Table fall back to it."""

    def select_parser(self, request: Request, parsers: Any) -> Any:
        return parsers[0] if parsers else None

    def select_renderer(
        self, request: Request, renderers: Any, format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        return renderers[0], renderers[0].media_type


class _NobodyIn(BasePermission):
    """No access control was registered: refuse every call."""

    def has_permission(self, request: Any, view: Any) -> bool:
        return False


def _allowed_namespaces(user: Any) -> frozenset[str] | None:
    """Return the namespaces ``user`` may list (None: every one), by the access control."""
    control = registry.access_control()
    return control.namespaces(user) if control is not None else frozenset()


class KubeAPIView(APIView):
    """Base of every API view: the access control's auth and roles, ``Status`` errors, JSON.

    A view that names its own ``permission_classes`` (discovery: any signed-in caller) keeps
    them; the others take the access control's.
    """

    authentication_classes = []  # noqa: RUF012  (the access control's: get_authenticators)
    permission_classes = []  # noqa: RUF012  (the access control's, unless a view names its own)
    renderer_classes = [JSONRenderer]  # noqa: RUF012
    parser_classes = []  # noqa: RUF012
    content_negotiation_class = JSONOnly
    subresource: ClassVar[str] = ""
    access: ClassVar[str] = ""

    def get_exception_handler(self) -> Callable[[Exception, dict[str, Any]], Response | None]:
        return exception_handler

    def get_authenticators(self) -> list[BaseAuthentication]:
        """Return the access control's authenticators (token, then session)."""
        control = registry.access_control()
        classes = control.authentication_classes if control is not None else ()
        return [authentication() for authentication in classes]

    def get_permissions(self) -> Sequence[Any]:
        """Return the view's own permissions, else the access control's (roles)."""
        if self.permission_classes:
            return super().get_permissions()
        control = registry.access_control()
        if control is None:
            return [_NobodyIn()]
        return [permission() for permission in control.permission_classes]

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        """Serve the call with the writes it makes attributed to its user (audit log).

        A write that meets a transient database error (a deadlock, a serialization failure)
        is served again from the start, in a new transaction, instead of answering 500.
        """

        def serve() -> HttpResponseBase:
            with acting_as(None):
                return super(KubeAPIView, self).dispatch(request, *args, **kwargs)

        return retry_transient(serve)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        """Authenticate and authorise, refuse a NUL in the path, then name the actor."""
        super().initial(request, *args, **kwargs)
        for key, value in kwargs.items():
            # No name holds a NUL, and PostgreSQL refuses one in a query: 400, never a 500.
            if isinstance(value, str) and "\x00" in value:
                raise KubeError(400, f"{key} {value!r} is invalid: must not contain a NUL byte")
        set_actor(request.user)


def dry_run(request: Request) -> bool:
    """Return whether ``?dryRun=All`` was asked (400 for any other value)."""
    values = request.query_params.getlist("dryRun")
    for value in values:
        if value != "All":
            raise KubeError(400, f"dryRun value {value!r} is not supported; use All")
    return bool(values)


# Groups served here as CustomResourceDefinitions on a real cluster (Volcano's and ours).
_CUSTOM_GROUP_SUFFIX = ".volcano.sh"


def is_custom_resource(resource: Any) -> bool:
    """Return whether ``resource`` is a custom resource on a real cluster (not a core kind)."""
    return str(resource.group).endswith(_CUSTOM_GROUP_SUFFIX)


def raw_body(request: Request) -> bytes:
    """Return the request's bytes; 413 ``Status`` past the body limit (read no further)."""
    try:
        return bytes(request.body)
    except RequestDataTooBig as exc:
        raise KubeError(413, f"the request body is larger than {max_body_bytes()} bytes") from exc


def body(request: Request) -> Any:
    """Return the decoded request body (JSON or YAML)."""
    return parse_document(raw_body(request), request.content_type)


def as_table(request: Request) -> str:
    """Return the Table ``includeObject`` (``Metadata``/``Object``/``None``) when a Table was
    asked for in ``Accept`` (kubectl get), else ``""``: answer the object itself."""
    if not wants_table(request.headers.get("Accept", "")):
        return ""
    include = request.query_params.get("includeObject") or "Metadata"
    if include not in ("Metadata", "Object", "None"):
        raise KubeError(400, f"includeObject must be None, Metadata or Object, got {include!r}")
    return include


def delete_options(request: Request) -> dict[str, Any]:
    """Return the ``DeleteOptions`` body kubectl sends (empty without one); 400 when malformed.

    ``propagationPolicy`` (body or query) lands in ``options["propagationPolicy"]``:
    Background and Foreground collect the dependents with their owner, Orphan leaves them
    (``kube.garbage``).
    """
    options: Any = body(request) if raw_body(request).strip() else {}
    if not isinstance(options, dict):
        raise KubeError(400, "the body of a delete must be a DeleteOptions object")
    policy = options.get("propagationPolicy") or request.query_params.get("propagationPolicy")
    if policy not in (None, "Foreground", "Background", "Orphan"):
        raise KubeError(
            400, f"propagationPolicy {policy!r} is not one of Foreground, Background, Orphan"
        )
    if options.get("orphanDependents") is True and policy is None:  # the deprecated spelling
        policy = "Orphan"
    options["propagationPolicy"] = policy or "Background"
    grace = options.get("gracePeriodSeconds", request.query_params.get("gracePeriodSeconds"))
    if grace in (None, ""):
        options["gracePeriodSeconds"] = None
    else:
        try:
            options["gracePeriodSeconds"] = int(str(grace))
        except (TypeError, ValueError):
            raise KubeError(400, f"gracePeriodSeconds must be an integer, got {grace!r}") from None
    return options


def _int_param(request: Request, name: str, default: int) -> int:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise KubeError(400, f"{name} must be an integer, got {value!r}") from exc


class ResourceView(KubeAPIView):
    """A view over one resource; ``namespace`` comes from the path when namespaced."""

    resource: ClassVar[Resource]

    @property
    def access_name(self) -> str:
        """Return the name roles grant on (``jobs``, ``jobs/status``)."""
        base = self.access or self.resource.access
        return f"{base}/{self.subresource}" if self.subresource else base

    def namespace(self) -> str | None:
        """Return the namespace of the path, if any."""
        value = self.kwargs.get("namespace")
        return str(value) if value is not None else None

    def get_object(self, *, lock: bool = False) -> Any:
        """Return the stored object named by the path; 404 Status when there is none."""
        keys = {"name": self.kwargs["name"]}
        if self.resource.namespaced:
            keys["namespace"] = self.kwargs["namespace"]
        queryset = self.resource.queryset()
        if lock:
            # Lock only the object's own row: PostgreSQL refuses FOR UPDATE on the nullable side
            # of the outer joins a resource's select_related adds.
            queryset = queryset.select_for_update(of=("self",))
        instance = queryset.filter(**keys).first()
        if instance is None:
            raise KubeError(
                404,
                f'{self.resource.qualified} "{keys["name"]}" not found',
                kind=self.resource.plural,
                name=keys["name"],
                group=self.resource.group,
            )
        return instance


class CollectionView(ResourceView):
    """``GET`` list or watch, ``POST`` create, ``DELETE`` every match (deletecollection)."""

    def list_query(self, request: Request) -> ListQuery:
        """Return what the call selects: the path's namespace, the roles', the selectors."""
        return ListQuery(
            namespace=self.namespace(),
            allowed_namespaces=_allowed_namespaces(request.user),
            labels=tuple(parse_label_selector(request.query_params.get("labelSelector"))),
            fields=tuple(
                parse_field_selector(
                    request.query_params.get("fieldSelector"), self.resource.field_selectors
                )
            ),
            limit=_int_param(request, "limit", 0),
            cont=request.query_params.get("continue", ""),
        )

    def get(self, request: Request, **kwargs: Any) -> Any:
        query = self.list_query(request)
        if request.query_params.get("watch") in ("1", "true", "True"):
            since = request.query_params.get("resourceVersion", "")
            if since and not since.isdigit():
                raise KubeError(400, f"resourceVersion must be digits, got {since!r}")
            timeout = _int_param(request, "timeoutSeconds", 1800)
            return watch_response(
                request._request,
                self.resource,
                query,
                since=int(since) if since else None,
                timeout=max(0, min(timeout, 3600)),
                table=as_table(request),
            )
        if query.limit < 0:
            raise KubeError(400, "limit must not be negative")
        page, version, cont, remaining = list_objects(self.resource, query)
        listed = render_list(
            self.resource, page, resource_version=version, cont=cont, remaining=remaining
        )
        if include := as_table(request):
            return Response(
                table(self.resource, listed["items"], list_meta=listed["metadata"], include=include)
            )
        return Response(listed)

    def post(self, request: Request, **kwargs: Any) -> Response:
        if not self.resource.writable:
            raise KubeError(405, f"create is not supported on {self.resource.qualified}")
        created = object_create(
            self.resource,
            body(request),
            namespace=self.namespace(),
            dry_run=dry_run(request),
            user=request.user,
        )
        return Response(created, status=201)

    def delete(self, request: Request, **kwargs: Any) -> Response:
        """Delete every object the selectors match (``deletecollection``), all or nothing.

        Answers the ``<Kind>List`` of the deleted objects' last states, as the Kubernetes API
        server does. Unlike it, one refusal (the ``default`` queue) refuses the whole call in
        one transaction: nothing is half deleted. ``dryRun=All`` deletes nothing.
        """
        if not self.resource.writable:
            raise KubeError(405, f"deletecollection is not supported on {self.resource.qualified}")
        options = delete_options(request)
        query = self.list_query(request)
        if query.limit or query.cont:
            raise KubeError(400, "limit and continue are not supported by deletecollection")
        dry = dry_run(request)
        with transaction.atomic():
            matched = filtered(self.resource, query).select_for_update(of=("self",))
            order = ("namespace", "name", "pk") if self.resource.namespaced else ("name", "pk")
            items = [
                object_delete(
                    self.resource,
                    instance,
                    dry_run=dry,
                    propagation=options["propagationPolicy"],
                    grace_period=options["gracePeriodSeconds"],
                )
                for instance in matched.order_by(*order)
            ]
            listed = render_list(
                self.resource, [], resource_version=latest_resource_version(), cont="", remaining=0
            )
        listed["items"] = items
        return Response(listed)


class ItemView(ResourceView):
    """``GET``, ``PUT``, ``PATCH`` and ``DELETE`` one object."""

    def get(self, request: Request, **kwargs: Any) -> Response:
        manifest = render(self.resource, self.get_object())
        if include := as_table(request):
            return Response(table(self.resource, [manifest], include=include))
        return Response(manifest)

    def put(self, request: Request, **kwargs: Any) -> Response:
        document = body(request)
        with transaction.atomic():
            return Response(
                object_replace(
                    self.resource,
                    self._writable_object(),
                    document,
                    subresource=self.subresource,
                    dry_run=dry_run(request),
                )
            )

    def patch(self, request: Request, **kwargs: Any) -> Response:
        kind = media_type(request.content_type)
        if kind in ("application/json", "application/yaml", ""):
            raise KubeError(
                415,
                f"the media type {kind!r} is not a patch; use application/merge-patch+json"
                " or application/json-patch+json",
            )
        if kind == APPLY_PATCH:
            return self._apply(request)
        if kind == STRATEGIC_MERGE_PATCH and is_custom_resource(self.resource):
            # As kube-apiserver answers for CRDs: strategic merge needs Go struct tags that
            # custom resources do not have (kubectl then suggests --type merge).
            raise KubeError(
                415,
                f"the body of the request was in an unknown format - accepted media types "
                f"include: {JSON_PATCH}, {MERGE_PATCH}, {APPLY_PATCH}",
            )
        patch = body(request)
        with transaction.atomic():
            return Response(
                object_patch(
                    self.resource,
                    self._writable_object(),
                    patch,
                    content_type=kind,
                    subresource=self.subresource,
                    dry_run=dry_run(request),
                )
            )

    def _apply(self, request: Request) -> Response:
        """Server-side apply: create the object, or merge the applied config into it.

        Field ownership (``managedFields``) is not tracked: the applied fields win, the
        others stay, which is what a single manager sees from Kubernetes.
        """
        if not request.query_params.get("fieldManager"):
            raise KubeError(400, "PATCH with application/apply-patch+yaml requires fieldManager")
        document = body(request)
        if not isinstance(document, dict):
            raise KubeError(400, f"expected a {self.resource.kind} object")
        name = (document.get("metadata") or {}).get("name")
        if name != self.kwargs["name"]:
            raise KubeError(400, f"metadata.name {name!r} does not match the URL's name")
        with transaction.atomic():
            try:
                existing = self._writable_object()
            except KubeError as exc:
                if exc.code != 404:
                    raise
                created = object_create(
                    self.resource, document, namespace=self.namespace(), dry_run=dry_run(request)
                )
                return Response(created, status=201)
            return Response(
                object_patch(
                    self.resource,
                    existing,
                    document,
                    content_type=MERGE_PATCH,
                    subresource=self.subresource,
                    dry_run=dry_run(request),
                )
            )

    def delete(self, request: Request, **kwargs: Any) -> Response:
        if not self.resource.writable:
            raise KubeError(405, f"delete is not supported on {self.resource.qualified}")
        options = delete_options(request)
        with transaction.atomic():
            return Response(
                object_delete(
                    self.resource,
                    self.get_object(lock=True),
                    dry_run=dry_run(request),
                    preconditions=options.get("preconditions"),
                    propagation=options["propagationPolicy"],
                    grace_period=options["gracePeriodSeconds"],
                )
            )

    def _writable_object(self) -> Any:
        if not self.resource.writable:
            raise KubeError(405, f"update is not supported on {self.resource.qualified}")
        return self.get_object(lock=True)


class StatusView(ItemView):
    """The ``/status`` subresource: reads the object, writes only its status."""

    subresource = "status"
    http_method_names = ["get", "put", "patch", "options"]  # noqa: RUF012
