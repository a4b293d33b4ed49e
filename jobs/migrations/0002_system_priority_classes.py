"""Create Kubernetes' two reserved priority classes."""

from __future__ import annotations

import uuid

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

SYSTEM_CLASSES = [
    (
        "system-cluster-critical",
        2_000_000_000,
        "Used for system critical pods that must run in the cluster, but can be moved to "
        "another node if necessary.",
    ),
    (
        "system-node-critical",
        2_000_001_000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
]


def create_system_classes(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    priority_class = apps.get_model("jobs", "PriorityClass")
    for name, value, description in SYSTEM_CLASSES:
        priority_class.objects.get_or_create(
            name=name,
            defaults={"value": value, "description": description, "uid": uuid.uuid4()},
        )


def remove_system_classes(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    names = [name for name, _, _ in SYSTEM_CLASSES]
    apps.get_model("jobs", "PriorityClass").objects.filter(name__in=names).delete()


class Migration(migrations.Migration):
    dependencies = [("jobs", "0001_initial")]
    operations = [migrations.RunPython(create_system_classes, remove_system_classes)]
