"""Production profile: the environment-driven settings plus HTTPS hardening.

Use with ``DJANGO_SETTINGS_MODULE=volcano_site.settings_production`` behind a
TLS-terminating proxy; ``manage.py check --deploy`` passes with no warning.
Everything else (database, Redis, hosts, key) still comes from the environment.
"""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

# A key generated per host (the embedded default) would differ between replicas behind one
# load balancer, so each would refuse the others' sessions and CSRF tokens.
if not os.environ.get("SECRET_KEY"):
    raise ImproperlyConfigured(
        "SECRET_KEY is not set: production needs the same secret key on every replica. "
        "Set it in the environment, e.g. SECRET_KEY=\"$(python3 -c 'import secrets; "
        "print(secrets.token_urlsafe(50))')\", and keep it out of the repository."
    )

from volcano_site.settings import *  # noqa: F403
from volcano_site.settings import env_flag

DEBUG = False
VOLCANO_PRODUCTION = True  # refuses failpoints (kube/failpoints.py)

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_flag("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"
