"""``manage.py serve --workers N``: N daphne processes answering on one port.

Daphne serves one process (one core's worth of Python); it has no ``--workers``, but it
accepts a socket it inherits (``--fd``). This supervisor binds the port once, starts N daphne
children on that socket (the kernel hands each incoming connection to whichever child
accepts it first), starts a child again when it dies, and on SIGTERM or SIGINT passes the
signal on and waits for every child before it exits (gunicorn's arbiter, in small).

With more than one worker, websockets and live topics must cross processes: they need the
Redis channel layer (``REDIS_URL``), which the distributed mode sets. The embedded scheduler
loop (``VOLCANO_EMBEDDED_SCHEDULER``) starts in every child, and its lease lets one schedule.
Extra daphne endpoints (``--endpoint``, the TLS port of ``make run``) go to the first child
only: a port can be bound once.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

__all__ = ["Command", "Supervisor", "default_workers"]

APPLICATION = "volcano_site.asgi:application"
RESTART_DELAY_SECONDS = 1.0
STOP_GRACE_SECONDS = 20.0
# Connections each worker keeps open at most: the requests it serves at once (sync views run
# in threads), the embedded loop and the watch fan-out.
DB_POOL_SIZE = 24


def default_workers() -> int:
    """Return the workers to start: ``VOLCANO_WEB_WORKERS``, else one per core with Redis
    (the distributed mode) and one without (the in-memory channel layer is per process)."""
    configured = os.environ.get("VOLCANO_WEB_WORKERS", "").strip()
    if configured:
        try:
            return max(1, int(configured))
        except ValueError as exc:
            raise CommandError(
                f"VOLCANO_WEB_WORKERS must be a whole number, got {configured!r}"
            ) from exc
    if getattr(settings, "REDIS_URL", ""):
        return max(2, os.cpu_count() or 1)
    return 1


def child_environment() -> dict[str, str]:
    """Return the children's environment: ours, with a connection pool on PostgreSQL."""
    env = dict(os.environ)
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        env.setdefault("VOLCANO_DB_POOL", str(DB_POOL_SIZE))
    return env


class Supervisor:
    """Bind the port, keep ``workers`` daphne children on it, stop them all on a signal."""

    def __init__(
        self,
        *,
        host: str,
        port: int,
        workers: int,
        endpoints: list[str],
        daphne_args: list[str],
        out: Any,
    ) -> None:
        self.host = host
        self.port = port
        self.workers = workers
        self.endpoints = endpoints
        self.daphne_args = daphne_args
        self.out = out
        self.children: dict[int, subprocess.Popen[bytes]] = {}  # slot -> process
        self.stopping = False
        self.listener: socket.socket | None = None

    def bind(self) -> socket.socket:
        """Return the listening socket, inheritable by the children."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind((self.host, self.port))
        except OSError as exc:
            listener.close()
            raise CommandError(f"cannot listen on {self.host}:{self.port}: {exc}") from exc
        listener.listen(1024)
        listener.set_inheritable(True)
        self.listener = listener
        return listener

    def command(self, slot: int, fd: int) -> list[str]:
        """Return the daphne command line of child ``slot``."""
        line = [sys.executable, "-m", "daphne", "--fd", str(fd), *self.daphne_args]
        if slot == 0:
            for endpoint in self.endpoints:
                line += ["-e", endpoint]
        return [*line, APPLICATION]

    def spawn(self, slot: int) -> None:
        """Start child ``slot`` on the shared socket."""
        assert self.listener is not None
        fd = self.listener.fileno()
        self.children[slot] = subprocess.Popen(
            self.command(slot, fd), pass_fds=(fd,), env=child_environment()
        )
        self.out.write(f"worker {slot} started (pid {self.children[slot].pid})\n")
        self.out.flush()

    def signalled(self, signum: int, frame: FrameType | None) -> None:
        """Pass the signal on to every child and stop restarting them."""
        self.stopping = True
        for child in self.children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGTERM if signum == signal.SIGTERM else signum)

    def run(self) -> int:
        """Serve until a signal; return the exit status."""
        self.bind()
        signal.signal(signal.SIGTERM, self.signalled)
        signal.signal(signal.SIGINT, self.signalled)
        self.out.write(f"listening on {self.host}:{self.port} with {self.workers} worker(s)\n")
        for slot in range(self.workers):
            self.spawn(slot)
        while not self.stopping:
            time.sleep(0.2)
            for slot, child in list(self.children.items()):
                code = child.poll()
                if code is None or self.stopping:
                    continue
                self.out.write(f"worker {slot} (pid {child.pid}) exited with {code}; restarting\n")
                time.sleep(RESTART_DELAY_SECONDS)  # a child that fails at start-up must not spin
                if not self.stopping:
                    self.spawn(slot)
        return self.wait_all()

    def wait_all(self) -> int:
        """Wait for the children (killing those past the grace period); return 0."""
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for child in self.children.values():
            try:
                child.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if self.listener is not None:
            self.listener.close()
        self.out.write("every worker stopped\n")
        return 0


class Command(BaseCommand):
    help = "Serve the site (HTTP, websockets, the API) from several daphne processes on one port."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", "-b", default="127.0.0.1")
        parser.add_argument("--port", "-p", type=int, default=8000)
        parser.add_argument(
            "--workers",
            type=int,
            default=0,
            help="daphne processes (default: VOLCANO_WEB_WORKERS, else one per core with "
            "REDIS_URL, one without)",
        )
        parser.add_argument(
            "--endpoint",
            "-e",
            action="append",
            default=[],
            help="an extra daphne endpoint for the first worker (e.g. the TLS port)",
        )
        parser.add_argument(
            "daphne_args", nargs="*", help="more daphne options, after a --", default=[]
        )

    def handle(self, *args: Any, **options: Any) -> None:
        workers = options["workers"] or default_workers()
        if workers < 1:
            raise CommandError("--workers must be at least 1")
        if workers > 1 and not getattr(settings, "REDIS_URL", ""):
            self.stderr.write(
                "warning: without REDIS_URL each worker has its own in-memory channel layer:"
                " a live page sees only the writes of the worker serving its websocket\n"
            )
        supervisor = Supervisor(
            host=options["host"],
            port=options["port"],
            workers=workers,
            endpoints=options["endpoint"],
            daphne_args=options["daphne_args"],
            out=self.stdout,
        )
        code = supervisor.run()
        if code:
            sys.exit(code)
