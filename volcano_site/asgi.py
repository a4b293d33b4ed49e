"""ASGI entry point: Django for HTTP, Channels for websockets (served by daphne)."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")
# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from scheduler import embedded  # noqa: E402
from volcano_site.routing import websocket_urlpatterns  # noqa: E402
from volcano_site.startup import freeze_startup_heap  # noqa: E402

# `make run` has no separate web server in front, so daphne serves /static/ itself
# (from the apps and static/, no collectstatic step); production turns this off.
http_app = ASGIStaticFilesHandler(django_asgi_app) if settings.SERVE_STATIC else django_asgi_app

application = ProtocolTypeRouter(
    {
        "http": http_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
# The embedded loop (``make run``), once every app is ready: its first cycle reads the database.
embedded.start()
freeze_startup_heap()  # the start-up heap out of the garbage collector's walks
