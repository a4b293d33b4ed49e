"""The Celery app: reads ``CELERY_*`` settings and finds each app's ``tasks.py``.

Without ``REDIS_URL`` the settings make every task run eagerly in the caller
(the embedded mode), so the same task functions serve both ways of running.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "volcano_site.settings")

app = Celery("volcano_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
