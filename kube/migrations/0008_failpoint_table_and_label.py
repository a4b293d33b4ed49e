"""Failpoint's table takes the kernel's name (``scheduler_failpoint`` becomes ``kube_failpoint``
with every armed row in it), and its label follows (content types)."""

from django.db import migrations

from kube.migration_ops import relabel

MOVED = {
    'scheduler.failpoint': 'kube.failpoint',
}


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('kube', '0007_failpoint_moved_in'),
        ('scheduler', '0009_failpoint_moved_to_kube'),
    ]

    operations = [
        *(migrations.AlterModelTable(name=label.split('.')[1], table=None) for label in MOVED.values()),
        relabel(MOVED),
    ]
