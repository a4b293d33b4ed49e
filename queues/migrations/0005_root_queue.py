"""Create the ``root`` queue Volcano always has: the parent of every queue (weight 1, not
reclaimable, Open), as Volcano's scheduler creates it at start-up (``newDefaultAndRootQueue``)."""

from __future__ import annotations

import uuid

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def create_root(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    queue = apps.get_model("queues", "Queue")
    queue.objects.get_or_create(
        name="root",
        defaults={"weight": 1, "reclaimable": False, "state": "Open", "uid": uuid.uuid4()},
    )


class Migration(migrations.Migration):
    dependencies = [("queues", "0004_queue_share_status")]
    # Reversing leaves the row: the root queue is never deleted.
    operations = [migrations.RunPython(create_root, migrations.RunPython.noop)]
