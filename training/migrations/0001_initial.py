"""Kubeflow's training jobs move in from the jobs app (state only; 0002 renames the tables)."""

import django.db.models.deletion
import kube.validators
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('jobs', '0015_pod_container_state'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='MPIJob',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('uid', models.UUIDField(blank=True, editable=False, null=True)),
                        ('resource_version', models.PositiveBigIntegerField(default=1, editable=False)),
                        ('labels', models.JSONField(blank=True, default=dict)),
                        ('annotations', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('owner_references', models.JSONField(blank=True, default=list)),
                        ('finalizers', models.JSONField(blank=True, default=list)),
                        ('deletion_timestamp', models.DateTimeField(blank=True, editable=False, null=True)),
                        ('namespace', models.CharField(default='default', max_length=63, validators=[kube.validators.validate_dns1123_label])),
                        ('name', models.CharField(max_length=253, validators=[kube.validators.validate_dns1123_subdomain])),
                        ('spec', models.JSONField(blank=True, default=dict, help_text='replica specs and runPolicy')),
                        ('queue', models.CharField(blank=True, max_length=63)),
                        ('priority_class_name', models.CharField(blank=True, max_length=253)),
                        ('conditions', models.JSONField(blank=True, default=list)),
                        ('replica_statuses', models.JSONField(blank=True, default=dict)),
                        ('start_time', models.DateTimeField(blank=True, null=True)),
                        ('completion_time', models.DateTimeField(blank=True, null=True)),
                        ('last_reconcile_time', models.DateTimeField(blank=True, null=True)),
                        ('restarts', models.PositiveIntegerField(default=0)),
                        ('creator', models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'jobs_mpijob',
                        'ordering': ['namespace', 'name'],
                        'abstract': False,
                        'constraints': [models.UniqueConstraint(fields=('namespace', 'name'), name='mpijob_unique_name')],
                    },
                ),
                migrations.CreateModel(
                    name='PyTorchJob',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('uid', models.UUIDField(blank=True, editable=False, null=True)),
                        ('resource_version', models.PositiveBigIntegerField(default=1, editable=False)),
                        ('labels', models.JSONField(blank=True, default=dict)),
                        ('annotations', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('owner_references', models.JSONField(blank=True, default=list)),
                        ('finalizers', models.JSONField(blank=True, default=list)),
                        ('deletion_timestamp', models.DateTimeField(blank=True, editable=False, null=True)),
                        ('namespace', models.CharField(default='default', max_length=63, validators=[kube.validators.validate_dns1123_label])),
                        ('name', models.CharField(max_length=253, validators=[kube.validators.validate_dns1123_subdomain])),
                        ('spec', models.JSONField(blank=True, default=dict, help_text='replica specs and runPolicy')),
                        ('queue', models.CharField(blank=True, max_length=63)),
                        ('priority_class_name', models.CharField(blank=True, max_length=253)),
                        ('conditions', models.JSONField(blank=True, default=list)),
                        ('replica_statuses', models.JSONField(blank=True, default=dict)),
                        ('start_time', models.DateTimeField(blank=True, null=True)),
                        ('completion_time', models.DateTimeField(blank=True, null=True)),
                        ('last_reconcile_time', models.DateTimeField(blank=True, null=True)),
                        ('restarts', models.PositiveIntegerField(default=0)),
                        ('creator', models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'jobs_pytorchjob',
                        'ordering': ['namespace', 'name'],
                        'abstract': False,
                        'constraints': [models.UniqueConstraint(fields=('namespace', 'name'), name='pytorchjob_unique_name')],
                    },
                ),
                migrations.CreateModel(
                    name='TFJob',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('uid', models.UUIDField(blank=True, editable=False, null=True)),
                        ('resource_version', models.PositiveBigIntegerField(default=1, editable=False)),
                        ('labels', models.JSONField(blank=True, default=dict)),
                        ('annotations', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('owner_references', models.JSONField(blank=True, default=list)),
                        ('finalizers', models.JSONField(blank=True, default=list)),
                        ('deletion_timestamp', models.DateTimeField(blank=True, editable=False, null=True)),
                        ('namespace', models.CharField(default='default', max_length=63, validators=[kube.validators.validate_dns1123_label])),
                        ('name', models.CharField(max_length=253, validators=[kube.validators.validate_dns1123_subdomain])),
                        ('spec', models.JSONField(blank=True, default=dict, help_text='replica specs and runPolicy')),
                        ('queue', models.CharField(blank=True, max_length=63)),
                        ('priority_class_name', models.CharField(blank=True, max_length=253)),
                        ('conditions', models.JSONField(blank=True, default=list)),
                        ('replica_statuses', models.JSONField(blank=True, default=dict)),
                        ('start_time', models.DateTimeField(blank=True, null=True)),
                        ('completion_time', models.DateTimeField(blank=True, null=True)),
                        ('last_reconcile_time', models.DateTimeField(blank=True, null=True)),
                        ('restarts', models.PositiveIntegerField(default=0)),
                        ('creator', models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'jobs_tfjob',
                        'ordering': ['namespace', 'name'],
                        'abstract': False,
                        'constraints': [models.UniqueConstraint(fields=('namespace', 'name'), name='tfjob_unique_name')],
                    },
                ),
            ],
        ),
    ]
