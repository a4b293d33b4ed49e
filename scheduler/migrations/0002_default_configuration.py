"""Create the first, active SchedulerConfiguration: Volcano's default conf."""

from __future__ import annotations

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

# A copy, not an import: a migration must keep meaning what it meant when written.
DEFAULT_SCHEDULER_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""


def create_default(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    configuration = apps.get_model("scheduler", "SchedulerConfiguration")
    if not configuration.objects.filter(is_active=True).exists():
        configuration.objects.create(
            version=1,
            text=DEFAULT_SCHEDULER_CONF,
            comment="Volcano's default configuration",
            is_active=True,
        )


def remove_default(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    apps.get_model("scheduler", "SchedulerConfiguration").objects.filter(version=1).delete()


class Migration(migrations.Migration):
    dependencies = [("scheduler", "0001_initial")]
    operations = [migrations.RunPython(create_default, remove_default)]
