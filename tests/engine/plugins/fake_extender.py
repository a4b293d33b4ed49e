"""A scheduler extender the tests run on a loopback port (Volcano's tests use ``httptest``).

Each verb's answer is a function of the request body; the server records every call (verb and
decoded body) and every TCP connection it accepted, so tests can check what the scheduler sent,
how often, and over how many connections.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[Any], Any]  # request body → JSON answer (or a Reply)


@dataclass
class Reply:
    """A full answer: status code, raw body, and how long to wait before sending it."""

    status: int = 200
    body: bytes = b"{}"
    delay: float = 0.0


@dataclass
class FakeExtender:
    """What the extender answers per verb, and what it was asked."""

    answers: dict[str, Answer] = field(default_factory=dict)
    calls: list[tuple[str, Any]] = field(default_factory=list)
    connections: int = 0
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def verbs(self) -> list[str]:
        """Return the verbs asked, in order."""
        with self.lock:
            return [verb for verb, _ in self.calls]

    def bodies(self, verb: str) -> list[Any]:
        """Return the request bodies sent to ``verb``."""
        with self.lock:
            return [body for v, body in self.calls if v == verb]


def _handler(fake: FakeExtender) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as Go's client uses

        def setup(self) -> None:
            super().setup()
            with fake.lock:
                fake.connections += 1

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"null")
            verb = self.path.rsplit("/", 1)[-1]
            with fake.lock:
                fake.calls.append((verb, body))
            answer = fake.answers.get(verb, lambda _body: {})(body)
            reply = answer if isinstance(answer, Reply) else Reply(body=json.dumps(answer).encode())
            if reply.delay:
                time.sleep(reply.delay)
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the scheduler gave up waiting (a timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

    return Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a timeout test) is expected here, not a failure."""


@contextmanager
def running_extender(**answers: Answer) -> Iterator[FakeExtender]:
    """Run an extender answering ``answers`` on 127.0.0.1; yield it with its ``url``."""
    fake = FakeExtender(answers=dict(answers))
    server = _QuietServer(("127.0.0.1", 0), _handler(fake))
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
