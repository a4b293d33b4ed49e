"""Settings for the console, read from the environment (healthchecks' hc/settings.py style).

Everything a deployment changes comes from an environment variable, so the same
code runs on a laptop (SQLite, in-memory channel layer, embedded worker) and in
production (PostgreSQL, Redis, Celery):

- ``DATABASE_URL``: any URL dj-database-url understands. Unset: a SQLite file in
  the data directory, *outside* the source tree, opened in WAL mode so the web
  server and the embedded scheduler loop can read while the other writes.
- ``REDIS_URL``: when set, the channel layer, the cache and the Celery broker use
  it; unset, an in-memory layer and an embedded (eager) worker.
- ``SECRET_KEY``: unset, one is generated once into the data directory and
  reused, so sessions survive restarts and no key is ever committed.
- ``DEBUG`` (off unless ``1``/``true``), ``ALLOWED_HOSTS`` (comma separated),
  ``VOLCANO_DATA_DIR`` (default ``~/.local/share/volcano-console``).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name: str, *, default: bool = False) -> bool:
    """Return the boolean value of an environment variable (``1``, ``true``, ``yes``, ``on``)."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    """Return a comma-separated environment variable as a list without blanks."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def data_dir() -> Path:
    """Return (and create) the directory that holds the SQLite file and the generated key."""
    default = Path.home() / ".local" / "share" / "volcano-console"
    path = Path(os.environ.get("VOLCANO_DATA_DIR") or default).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def generated_secret_key(directory: Path) -> str:
    """Return the key stored in ``directory``, generating it once (atomically) if missing."""
    path = directory / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(64)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process won the race: use its key
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key)
    return key


def database_config(url: str | None, directory: Path) -> dict[str, Any]:
    """Return Django's ``DATABASES["default"]`` for ``url`` (SQLite in ``directory`` when unset)."""
    if not url:
        url = f"sqlite:///{directory / 'db.sqlite3'}"
    config: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=0))
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # WAL lets readers (pages, the API) run while the scheduler writes; IMMEDIATE
        # transactions take the write lock up front instead of failing mid-way. A 32 MiB page
        # cache (SQLite's default is 2 MiB) holds the pages one session's write-back dirties
        # (10,000 binds, their change events and Events), which otherwise spill to the WAL
        # mid-transaction; it fills only as pages are read.
        config["OPTIONS"] = {
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768;"
            ),
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
        config.setdefault("TEST", {})
    elif pool := int(os.environ.get("VOLCANO_DB_POOL", "0") or 0):
        # A pool of open connections (``manage.py serve`` sets it for its workers): a new
        # PostgreSQL connection per request costs its backend's start-up, several ms each.
        config["OPTIONS"] = {"pool": {"min_size": 2, "max_size": pool, "timeout": 30}}
    else:
        config["CONN_HEALTH_CHECKS"] = True
    return config


DATA_DIR = data_dir()
DEBUG = env_flag("DEBUG")
SECRET_KEY = os.environ.get("SECRET_KEY") or generated_secret_key(DATA_DIR)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",  # runserver serves ASGI (HTTP and websockets)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI as static files: the docs need no CDN
    "django_htmx",
    "template_partials",
    # Ours, from the top layer down (README: the house).
    "scheduler",
    "monitoring",
    "flow",
    "jobs",
    "training",
    "queues",
    "kubelet",
    "topology",
    "core",
    "console",
    "accounts",
    "kube",
]

MIDDLEWARE = [
    # First, so it times the whole request as kube-apiserver's own metrics do.
    "kube.metrics.request_metrics",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The console's language: the cookie, else the browser's Accept-Language; then
    # accounts.language.user_language (below) puts the signed-in user's saved choice first.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.language.user_language",
    "accounts.audit.AuditMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "volcano_site.urls"
ASGI_APPLICATION = "volcano_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "console.context.console",
            ],
            # {% partialdef %} in every template: each live region is a partial.
            "builtins": ["template_partials.templatetags.partials"],
        },
    },
]

DATABASES = {"default": database_config(os.environ.get("DATABASE_URL"), DATA_DIR)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The Metrics pages read this Prometheus (its HTTP API) instead of the built-in history when
# set, e.g. http://localhost:9090; the token is sent as a bearer token when the Prometheus (or
# its proxy) asks for one; the scrape interval sizes the rate windows of the queries.
PROMETHEUS_URL = os.environ.get("PROMETHEUS_URL", "")
PROMETHEUS_TOKEN = os.environ.get("PROMETHEUS_TOKEN", "")
PROMETHEUS_TIMEOUT = float(os.environ.get("PROMETHEUS_TIMEOUT", "5"))
PROMETHEUS_SCRAPE_INTERVAL = int(os.environ.get("PROMETHEUS_SCRAPE_INTERVAL", "15"))

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS: dict[str, Any] = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
    CACHES: dict[str, Any] = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Celery: the broker is Redis when there is one; otherwise tasks run eagerly in
# the calling process (the embedded worker), so one code path serves both modes.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TIMEZONE = "UTC"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# The console speaks English and Simplified Chinese (locale/zh_Hans/LC_MESSAGES/django.po;
# README: Translations). The API's messages stay kube-apiserver's English: kubectl and the
# client libraries send no Accept-Language, so they get LANGUAGE_CODE.
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "console.staticfiles.PackageFilesFinder",  # plotly.min.js, ACE: from their packages
]
STATIC_ROOT = DATA_DIR / "static"
# Serve static files from the ASGI app itself (the embedded `make run`); a production
# deployment behind a web server sets SERVE_STATIC=0 and runs collectstatic.
SERVE_STATIC = env_flag("SERVE_STATIC", default=True)

# The largest request body the API reads (kube-apiserver's limit is 3 MiB); Django refuses a
# larger Content-Length before reading it, and the API answers 413 with a Status.
VOLCANO_MAX_BODY_BYTES = int(os.environ.get("VOLCANO_MAX_BODY_BYTES", str(3 * 1024 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = VOLCANO_MAX_BODY_BYTES
# Caps on pods, so that `replicas: 2147483647` is refused at admission, not attempted.
VOLCANO_MAX_PODS_PER_JOB = int(os.environ.get("VOLCANO_MAX_PODS_PER_JOB", "50000"))
# Per namespace: off unless set (checking it sums the namespace's replicas at every create).
VOLCANO_MAX_PODS_PER_NAMESPACE = int(os.environ.get("VOLCANO_MAX_PODS_PER_NAMESPACE", "0"))
# Seconds between the job controller's full passes (settled jobs too): Kubernetes' resync.
VOLCANO_CONTROLLER_RESYNC = float(os.environ.get("VOLCANO_CONTROLLER_RESYNC", "300"))

LOGIN_URL = "accounts:login"
# Under /api and /apis a refused CSRF check answers a Kubernetes Status, not an HTML page.
CSRF_FAILURE_VIEW = "kube.fallbacks.csrf_failure"

# The HTTPS listener `make run` adds (kubectl sends tokens only over TLS); the profile
# page's kubeconfig names it and embeds its self-signed certificate. Empty: none.
TLS_SERVER_URL = os.environ.get("VOLCANO_TLS_URL", "")
LOGIN_REDIRECT_URL = "overview"
LOGOUT_REDIRECT_URL = "accounts:login"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.BasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

VOLCANO_PUBLIC_API_DOCS = env_flag("VOLCANO_PUBLIC_API_DOCS", default=False)
SPECTACULAR_SETTINGS = {
    "TITLE": "Volcano console API",
    "DESCRIPTION": (
        "Volcano's resources the way the Kubernetes API server serves them. Authenticate with"
        " `Authorization: Bearer <token>` (tokens: /accounts/profile/). Lists also take"
        " `?watch=1&resourceVersion=N` and then stream newline-delimited watch events."
    ),
    "VERSION": "v1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Like kube-apiserver's /openapi/v2: the schema describes the cluster's API, so it is for
    # signed-in users unless VOLCANO_PUBLIC_API_DOCS=1 opens it.
    "SERVE_PERMISSIONS": ["kube.openapi.DocsAccess"],
    "COMPONENT_SPLIT_REQUEST": True,
    # The docs pages load their JS and CSS from our /static/, never from a third party.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # Swagger UI would otherwise send the schema's URL to validator.swagger.io for a badge.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"client_errors": {"()": "volcano_site.log_filters.ClientErrorsWithoutTraceback"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["client_errors"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# Failpoints for crash testing (kube/failpoints.py): armed by this setting, or, when
# enabled, by ``manage.py failpoint`` rows that every process reloads. Refused in production.
VOLCANO_FAILPOINTS = os.environ.get("VOLCANO_FAILPOINTS", "")
VOLCANO_FAILPOINTS_ENABLED = env_flag("VOLCANO_FAILPOINTS_ENABLED")
VOLCANO_PRODUCTION = False
