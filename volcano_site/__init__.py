"""The Django project: settings, URLs, the ASGI application and the Celery app.

Importing the Celery app here makes ``@shared_task`` bind to it as soon as Django starts.
"""

from __future__ import annotations

from volcano_site.celery import app as celery_app

__all__ = ["celery_app"]
