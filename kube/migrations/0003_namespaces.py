"""Namespaces: ``default`` from the first migrate, and one for every namespace in use."""

import uuid

import kube.validators
from django.db import migrations, models


def create_namespaces(apps, schema_editor):
    namespace_model = apps.get_model("kube", "Namespace")
    used = {"default"}
    for label in ("jobs.Job", "jobs.Pod", "jobs.PodGroup", "jobs.Command", "jobs.Event",
                  "jobs.Secret", "accounts.NamespaceGrant"):
        model = apps.get_model(label)
        used.update(model.objects.order_by().values_list("namespace", flat=True).distinct())
    namespace_model.objects.bulk_create(
        namespace_model(name=name, uid=uuid.uuid4()) for name in sorted(n for n in used if n)
    )


class Migration(migrations.Migration):

    dependencies = [
        ('kube', '0002_changeevent_created_at_unindexed'),
        ('jobs', '0009_job_creator'),
        ('accounts', '0002_roles'),
    ]

    operations = [
        migrations.CreateModel(
            name='Namespace',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('uid', models.UUIDField(blank=True, editable=False, null=True)),
                ('resource_version', models.PositiveBigIntegerField(default=1, editable=False)),
                ('labels', models.JSONField(blank=True, default=dict)),
                ('annotations', models.JSONField(blank=True, default=dict)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('name', models.CharField(max_length=63, unique=True, validators=[kube.validators.validate_dns1123_label])),
                ('phase', models.CharField(choices=[('Active', 'Active'), ('Terminating', 'Terminating')], default='Active', max_length=16)),
            ],
            options={
                'ordering': ['name'],
            },
        ),
        migrations.RunPython(create_namespaces, migrations.RunPython.noop),
    ]
