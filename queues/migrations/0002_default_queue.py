"""Create the ``default`` queue Volcano always has: weight 1, reclaimable, Open."""

from __future__ import annotations

import uuid

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def create_default(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    queue = apps.get_model("queues", "Queue")
    queue.objects.get_or_create(
        name="default",
        defaults={"weight": 1, "reclaimable": True, "state": "Open", "uid": uuid.uuid4()},
    )


class Migration(migrations.Migration):
    dependencies = [("queues", "0001_initial")]
    # Reversing leaves the row: the default queue is never deleted.
    operations = [migrations.RunPython(create_default, migrations.RunPython.noop)]
