"""The queue pages: the list with shares, a queue's page and actions, the editor.

The editor's share preview and what-if are the scheduler's (``scheduler.urls``).
"""

from __future__ import annotations

from django.urls import URLPattern, path

from queues.views import queue_detail, queue_edit, queue_list

app_name = "queues"

urlpatterns: list[URLPattern] = [
    path("queues/", queue_list.queue_list, name="queue_list"),
    path("queues/new/", queue_edit.queue_editor, name="queue_create"),
    path("queues/new/check/", queue_edit.queue_check, name="queue_create_check"),
    path("queues/<str:name>/", queue_detail.queue_detail, name="queue_detail"),
    path("queues/<str:name>/action/", queue_detail.queue_action, name="queue_action"),
    path("queues/<str:name>/edit/", queue_edit.queue_editor, name="queue_edit"),
    path("queues/<str:name>/edit/check/", queue_edit.queue_check, name="queue_edit_check"),
]
