"""Failpoint moved to the kernel (kube): the scheduler app forgets it (state only)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('scheduler', '0008_node_moved_to_core'),
        ('kube', '0007_failpoint_moved_in'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='Failpoint')],
        ),
    ]
