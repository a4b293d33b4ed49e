"""A stand-in for the API server: the client's opener answering from a list (no Django server)."""

from __future__ import annotations

import io
import json
import urllib.error
from dataclasses import dataclass, field
from typing import Any


@dataclass
class FakeResponse:
    status: int
    body: bytes

    def read(self) -> bytes:
        return self.body


@dataclass
class FakeServer:
    """An opener that answers from a list of (code, body) and records each request."""

    answers: list[tuple[int, Any]]
    requests: list[Any] = field(default_factory=list)

    def __call__(self, request, timeout):
        self.requests.append(request)
        code, body = self.answers.pop(0)
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        if code >= 400:
            raise urllib.error.HTTPError(request.full_url, code, "err", {}, io.BytesIO(raw))  # type: ignore[arg-type]
        return FakeResponse(code, raw)
