"""The CLI's HTTP side: one small client for the Kubernetes-style REST API, standard library only.

vcctl talks to the Kubernetes API server through client-go; ours talks to the console's API the
same way (JSON bodies, ``Authorization: Bearer <token>``, ``Status`` objects on failure), so the
CLI runs unchanged against a remote server. Nothing here imports Django or a model.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from http.client import HTTPException
from typing import Any, Protocol

__all__ = [
    "DEFAULT_SERVER",
    "ApiError",
    "Client",
    "Connection",
    "ConnectionFailedError",
    "resolve_connection",
]

DEFAULT_SERVER = "http://127.0.0.1:8000"
# Big pages keep a long list to a few round trips; the server caps the limit anyway.
PAGE_SIZE = 500

Object = dict[str, Any]


class Response(Protocol):
    """What ``urlopen`` returns and the client reads: a status code and a body."""

    status: int

    def read(self) -> bytes: ...


Opener = Callable[[urllib.request.Request, float], Response]


class ApiError(Exception):
    """The server refused a call; ``str()`` reads like kubectl's ``Error from server (...)``."""

    def __init__(self, code: int, reason: str, message: str) -> None:
        self.code = code
        self.reason = reason
        self.message = message
        super().__init__(f"Error from server ({reason}): {message}")


class ConnectionFailedError(Exception):
    """The server could not be reached at all (refused, unknown host, timed out)."""


@dataclass(frozen=True, slots=True)
class Connection:
    """Where the API is and who is calling it."""

    server: str
    token: str = ""
    timeout: float = 30.0


def resolve_connection(
    server: str | None, token: str | None, *, environ: Mapping[str, str] | None = None
) -> Connection:
    """Return the connection from the flags, else ``VOLCANO_SERVER``/``VOLCANO_TOKEN``, else local.

    A bare ``host:port`` gets ``http://`` in front, as kubectl's ``--server`` accepts it.
    """
    env = os.environ if environ is None else environ
    url = (server or env.get("VOLCANO_SERVER") or DEFAULT_SERVER).strip()
    if "://" not in url:
        url = f"http://{url}"
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in {"http", "https"}:
        raise ConnectionFailedError(f"unsupported server URL {url!r}: use http:// or https://")
    secret = (token or env.get("VOLCANO_TOKEN") or "").strip()
    if any(char.isspace() or not char.isprintable() for char in secret):
        # It would not fit in an HTTP header; usually a pasted line with more than the token.
        raise ConnectionFailedError("invalid token: it contains spaces or control characters")
    return Connection(server=url.rstrip("/"), token=secret)


def _default_opener(request: urllib.request.Request, timeout: float) -> Response:
    response: Response = urllib.request.urlopen(request, timeout=timeout)
    return response


class Client:
    """Calls on the REST API that return decoded JSON or raise ``ApiError``/``ConnectionFailedError``."""

    def __init__(self, connection: Connection, *, opener: Opener | None = None) -> None:
        self.connection = connection
        self._open = opener or _default_opener

    # -- verbs -------------------------------------------------------------------------------
    def get(self, path: str, query: Mapping[str, str] | None = None) -> Object:
        """Return the object (or one list page) at ``path``."""
        return self.request("GET", path, query=query)

    def list_all(self, path: str, query: Mapping[str, str] | None = None) -> Object:
        """Return the whole list at ``path``: every page joined, ``metadata.continue`` dropped."""
        pages = list(self._pages(path, dict(query or {})))
        first = pages[0]
        items = [item for page in pages for item in page.get("items") or []]
        metadata = {k: v for k, v in (first.get("metadata") or {}).items() if k != "continue"}
        metadata.pop("remainingItemCount", None)
        return {**first, "metadata": metadata, "items": items}

    def create(self, path: str, body: Object) -> Object:
        """POST ``body`` and return the stored object."""
        return self.request("POST", path, body=body)

    def merge_patch(self, path: str, patch: Object) -> Object:
        """PATCH ``path`` with an RFC 7386 merge patch (vcctl's way to change a weight)."""
        return self.request("PATCH", path, body=patch, content_type="application/merge-patch+json")

    def delete(self, path: str) -> Object:
        """DELETE ``path`` and return what the server answered (a Status or the object)."""
        return self.request("DELETE", path)

    # -- transport ---------------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, str] | None = None,
        body: Object | None = None,
        content_type: str = "application/json",
    ) -> Object:
        """Send one call and return its JSON body (``{}`` when empty)."""
        url = self.connection.server + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", content_type)
        if self.connection.token:
            request.add_header("Authorization", f"Bearer {self.connection.token}")
        try:
            response = self._open(request, self.connection.timeout)
            payload = response.read()
        except urllib.error.HTTPError as error:
            raise _api_error(error.code, error.read(), method, path) from None
        except (urllib.error.URLError, OSError, HTTPException) as error:
            reason = getattr(error, "reason", error)
            if isinstance(reason, socket.timeout | TimeoutError):
                reason = f"no answer within {self.connection.timeout:g}s"
            raise ConnectionFailedError(
                f"cannot connect to the server at {self.connection.server}: {reason} "
                "(is it running? set --server or VOLCANO_SERVER)"
            ) from None
        return _decode(payload, method, path)

    def _pages(self, path: str, query: dict[str, str]) -> Iterator[Object]:
        query.setdefault("limit", str(PAGE_SIZE))
        while True:
            page = self.get(path, query)
            yield page
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return
            query["continue"] = token


def _decode(payload: bytes, method: str, path: str) -> Object:
    if not payload.strip():
        return {}
    try:
        decoded = json.loads(payload)
    except ValueError:
        raise ApiError(0, "BadResponse", f"{method} {path}: the answer is not JSON") from None
    if not isinstance(decoded, dict):
        raise ApiError(
            0, "BadResponse", f"{method} {path}: expected an object, got JSON {decoded!r}"
        )
    return decoded


def _api_error(code: int, payload: bytes, method: str, path: str) -> ApiError:
    """Return the error a failed call means, from its ``Status`` body when it has one."""
    try:
        status = json.loads(payload)
    except ValueError:
        status = None
    if isinstance(status, dict) and status.get("kind") == "Status":
        message = str(status.get("message") or "")
        causes = (status.get("details") or {}).get("causes") or []
        lines = [
            f"{cause.get('field')}: {cause.get('message')}" if cause.get("field") else str(cause)
            for cause in causes
            if isinstance(cause, dict) and cause.get("message")
        ]
        # A 422 lists every bad field; show those the message does not already spell out.
        extra = [line for line in lines if line not in message]
        if extra:
            message = "\n".join([message or "invalid", *(f"  * {line}" for line in extra)])
        return ApiError(code, str(status.get("reason") or _reason_for(code)), message)
    detail = status.get("detail") if isinstance(status, dict) else None
    message = str(detail) if detail else f"{method} {path} answered HTTP {code}"
    return ApiError(code, _reason_for(code), message)


def _reason_for(code: int) -> str:
    """Return the Kubernetes reason for an HTTP code (for answers without a ``Status`` body)."""
    return {
        400: "BadRequest",
        401: "Unauthorized",
        403: "Forbidden",
        404: "NotFound",
        405: "MethodNotAllowed",
        409: "Conflict",
        410: "Gone",
        415: "UnsupportedMediaType",
        422: "Invalid",
        429: "TooManyRequests",
        500: "InternalError",
        503: "ServiceUnavailable",
        504: "ServerTimeout",
    }.get(code, f"HTTP {code}")
