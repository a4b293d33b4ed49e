"""The extender's HTTP client: one POST per verb, a bounded wait, one kept-alive connection.

Volcano's counterpart: ``extenderPlugin.send`` in ``pkg/scheduler/plugins/extender/extender.go``.
A call POSTs the JSON request to ``<urlPrefix without trailing "/">/<verb>`` with
``Content-Type: application/json``; anything but ``200 OK`` is an error
(``failed <verb> with extender at URL <url>, code <status>``); an answer over 10 MiB is refused
(``http: request body too large``). ``httpTimeout`` (Go's ``http.Client.Timeout``) bounds the
whole exchange, so a slow extender cannot hang the worker: the socket waits at most what is left
of it at each step, and reading the body stops when it runs out.

The only I/O in the engine: a plugin instance lives for one session and holds one client, whose
connection is reused for every call of that session (Go's keep-alive) and closed with it.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from typing import Any
from urllib.parse import urlsplit

__all__ = ["GIVE_UP_AFTER", "MAX_BODY_SIZE", "ExtenderClient", "ExtenderError"]

MAX_BODY_SIZE = 10 << 20  # Volcano's maxBodySize: 10 MiB

# After this many timeouts in a row, the rest of the session fails at once (see ``send``).
GIVE_UP_AFTER = 3

_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


class ExtenderError(Exception):
    """A call that failed: no connection, a timeout, a non-200 status or an unreadable body."""


class ExtenderClient:
    """POSTs JSON to one extender; keeps its connection open between calls."""

    def __init__(self, url_prefix: str, timeout: float) -> None:
        self.url_prefix = url_prefix.rstrip("/")
        self.timeout = timeout
        parts = urlsplit(self.url_prefix)
        self._scheme = parts.scheme
        self._host = parts.hostname or ""
        self._port = parts.port
        self._path = parts.path
        self._conn: http.client.HTTPConnection | None = None
        self._timeouts = 0  # timeouts in a row

    def url(self, verb: str) -> str:
        """Return the address a verb is POSTed to."""
        return f"{self.url_prefix}/{verb}"

    def close(self) -> None:
        """Close the kept-alive connection, if any."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def send(self, verb: str, request: Any, *, answer: bool = True) -> Any:
        """POST ``request`` to ``verb``; return the decoded JSON answer, or raise ExtenderError.

        ``answer=False``: the body is not decoded (Volcano sends OnSessionOpen/Close with a nil
        result), only the status counts.

        Once ``GIVE_UP_AFTER`` calls in a row have timed out, the client fails every later call
        at once with the same error: Volcano would wait out each one (a predicate per node and
        pod) and reach the same answers, but a black-holed extender would hold the worker for
        minutes. A client lives for one session, so the next session asks again.
        """
        if self._timeouts >= GIVE_UP_AFTER:
            raise ExtenderError(
                f'Post "{self.url(verb)}": context deadline exceeded (the extender timed out '
                f"{self._timeouts} times in a row this session; not waited for again)"
            )
        if self._scheme not in ("http", "https") or not self._host:
            raise ExtenderError(
                f'Post "{self.url(verb)}": unsupported protocol scheme "{self._scheme}"'
            )
        body = json.dumps(request, separators=(",", ":")).encode()
        deadline = time.monotonic() + self.timeout
        reused = self._conn is not None
        try:
            try:
                status, raw = self._exchange(verb, body, deadline)
            except _STALE:
                if not reused:
                    raise
                # The extender closed the idle kept-alive connection: one fresh try (Go does too).
                self.close()
                status, raw = self._exchange(verb, body, deadline)
        except ExtenderError:
            self.close()
            raise
        except (OSError, http.client.HTTPException) as error:
            self.close()
            if isinstance(error, TimeoutError | socket.timeout):
                self._timeouts += 1
                raise ExtenderError(
                    f'Post "{self.url(verb)}": context deadline exceeded '
                    "(Client.Timeout exceeded while awaiting headers)"
                ) from error
            raise ExtenderError(f'Post "{self.url(verb)}": {error}') from error
        self._timeouts = 0
        if status != 200:
            raise ExtenderError(
                f"failed {verb} with extender at URL {self.url(verb)}, code {status}"
            )
        if not answer:
            return None
        if not raw.strip():
            raise ExtenderError("EOF")  # Go's decoder on an empty body
        try:
            return json.loads(raw)
        except ValueError as error:
            raise ExtenderError(f"invalid character in extender answer: {error}") from error

    def _connection(self, deadline: float) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = (
                http.client.HTTPSConnection
                if self._scheme == "https"
                else http.client.HTTPConnection
            )
            self._conn = cls(self._host, self._port, timeout=_left(deadline))
        return self._conn

    def _exchange(self, verb: str, body: bytes, deadline: float) -> tuple[int, bytes]:
        conn = self._connection(deadline)
        conn.timeout = _left(deadline)
        if conn.sock is not None:
            conn.sock.settimeout(_left(deadline))
        conn.request(
            "POST",
            f"{self._path}/{verb}",
            body=body,
            headers={"Content-Type": "application/json"},
        )
        response = conn.getresponse()
        raw = _read_bounded(response, conn, deadline)
        if response.will_close:
            self.close()
        return response.status, raw


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("timed out")
    return left


def _read_bounded(
    response: http.client.HTTPResponse, conn: http.client.HTTPConnection, deadline: float
) -> bytes:
    """Read the body in pieces, each within what is left of the deadline, up to 10 MiB."""
    chunks: list[bytes] = []
    size = 0
    while True:
        if conn.sock is not None:
            conn.sock.settimeout(_left(deadline))
        chunk = response.read1(65536)
        if not chunk:
            response.close()  # done: the connection may carry the next call
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_BODY_SIZE:
            raise ExtenderError("http: request body too large")
        chunks.append(chunk)
