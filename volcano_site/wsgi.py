"""WSGI entry point, for servers that do not speak ASGI (no websockets there)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")
application = get_wsgi_application()

from volcano_site.startup import freeze_startup_heap  # noqa: E402

freeze_startup_heap()  # the start-up heap out of the garbage collector's walks
