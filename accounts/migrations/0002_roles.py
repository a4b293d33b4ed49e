"""Create the four roles as groups: viewer, submitter, operator, admin.

What each role may do on the API is the table in ``accounts/roles.py``;
the groups carry Django model permissions too, so the admin shows operators
and admins the models they manage (admins also need ``is_staff`` to log in there).
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

ROLES = ("viewer", "submitter", "operator", "admin")
# Model permissions per role, for the Django admin (app label → models).
_ADMIN_MODELS = {
    "operator": {
        "queues": ["queue"],
        "scheduler": ["node", "schedulerconfiguration"],
        "jobs": ["job", "podgroup", "pod", "command", "priorityclass"],
    },
}


def create_roles(apps: Any, schema_editor: Any) -> None:
    """Create the groups (idempotent); the admin group gets every permission."""
    from django.contrib.auth.management import create_permissions

    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    for name in ROLES:
        group, _ = group_model.objects.get_or_create(name=name)
        if name == "admin":
            group.permissions.set(permission_model.objects.all())
        for app_label, models in _ADMIN_MODELS.get(name, {}).items():
            group.permissions.add(
                *permission_model.objects.filter(
                    content_type__app_label=app_label, content_type__model__in=models
                )
            )


def remove_roles(apps: Any, schema_editor: Any) -> None:
    """Drop the groups."""
    apps.get_model("auth", "Group").objects.filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("jobs", "0001_initial"),
        ("queues", "0001_initial"),
        ("scheduler", "0001_initial"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
