"""The v1 kinds' tables take the core app's names, and their labels follow (content types,
the change stream, owner links): ``jobs_pod`` becomes ``core_pod`` with every row in it."""

from django.db import migrations

from kube.migration_ops import relabel

MOVED = {
    'jobs.pod': 'core.pod',
    'jobs.event': 'core.event',
    'jobs.secret': 'core.secret',
    'jobs.priorityclass': 'core.priorityclass',
    'scheduler.node': 'core.node',
    'scheduler.nodeloadstamp': 'core.nodeloadstamp',
    'kube.namespace': 'core.namespace',
}


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('core', '0001_initial'),
        ('jobs', '0016_models_moved_out'),
        ('kube', '0005_namespace_moved_to_core'),
        ('scheduler', '0008_node_moved_to_core'),
    ]

    operations = [
        *(migrations.AlterModelTable(name=label.split('.')[1], table=None) for label in MOVED.values()),
        relabel(MOVED),
    ]
