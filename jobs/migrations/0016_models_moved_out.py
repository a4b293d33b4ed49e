"""Pod, Event, Secret and PriorityClass moved to core, PodGroup to queues, the Kubeflow jobs to
training: the jobs app forgets them (state only; their rows and tables are untouched here and
renamed by the apps that now own them)."""

from django.db import migrations

MOVED_OUT = ("Pod", "Secret", "Event", "PriorityClass", "PodGroup", "PyTorchJob", "TFJob", "MPIJob")


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0015_pod_container_state'),
        ('core', '0001_initial'),
        ('queues', '0006_podgroup_moved_from_jobs'),
        ('training', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name=name) for name in MOVED_OUT],
        ),
    ]
