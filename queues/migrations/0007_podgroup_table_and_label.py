"""PodGroup's table takes the queues app's name and its label follows (content type, the
change stream, owner links): ``jobs_podgroup`` becomes ``queues_podgroup`` with its rows."""

from django.db import migrations

from kube.migration_ops import relabel


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('kube', '0005_namespace_moved_to_core'),
        ('jobs', '0016_models_moved_out'),
        ('queues', '0006_podgroup_moved_from_jobs'),
    ]

    operations = [
        migrations.AlterModelTable(name='podgroup', table=None),
        relabel({'jobs.podgroup': 'queues.podgroup'}),
    ]
