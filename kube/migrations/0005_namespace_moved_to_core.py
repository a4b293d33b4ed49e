"""Namespace moved to core: the kernel forgets it (state only)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('kube', '0004_object_owners_and_finalizers'),
        ('core', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='Namespace')],
        ),
    ]
