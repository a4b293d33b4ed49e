"""WSGI entry point, for servers that do not speak ASGI (no websockets there)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")
application = get_wsgi_application()
