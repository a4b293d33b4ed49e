"""The Kubeflow jobs' tables take the training app's names and their labels follow (content
types, the change stream, owner links), every row kept."""

from django.db import migrations

from kube.migration_ops import relabel

MOVED = {
    'jobs.pytorchjob': 'training.pytorchjob',
    'jobs.tfjob': 'training.tfjob',
    'jobs.mpijob': 'training.mpijob',
}


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('kube', '0005_namespace_moved_to_core'),
        ('jobs', '0016_models_moved_out'),
        ('training', '0001_initial'),
    ]

    operations = [
        *(migrations.AlterModelTable(name=label.split('.')[1], table=None) for label in MOVED.values()),
        relabel(MOVED),
    ]
