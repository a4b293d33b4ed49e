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

# The distributed scheduler: a cycle and a kubelet tick every schedulePeriod (Volcano's 1 s).
# A task older than two periods is dropped rather than run late (its cycle is already stale).
_PERIOD = float(os.environ.get("VOLCANO_SCHEDULE_PERIOD") or 1.0)
app.conf.beat_schedule = {
    "volcano-schedule": {
        "task": "scheduler.tasks.schedule",
        "schedule": _PERIOD,
        "options": {"expires": 2 * _PERIOD},
    },
    "volcano-runtime-tick": {
        "task": "kubelet.tasks.runtime_tick",
        "schedule": _PERIOD,
        "options": {"expires": 2 * _PERIOD},
    },
}

# VOLCANO_CELERY_QUEUES=split sends the cycle to the queue ``scheduler`` and the kubelet's tick to
# ``kubelet``, so one worker runs sessions and another the simulated nodes (``celery worker -Q
# scheduler,celery`` and ``-Q kubelet``): at scale a tick and a session each take a core, and
# neither waits behind the other. Unset, every task goes to the default queue ``celery``.
if os.environ.get("VOLCANO_CELERY_QUEUES", "").strip().lower() == "split":
    app.conf.task_routes = {
        "scheduler.tasks.schedule": {"queue": "scheduler"},
        "kubelet.tasks.runtime_tick": {"queue": "kubelet"},
    }
