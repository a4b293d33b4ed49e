"""PodGroup moves in from the jobs app (state only; 0007 renames its table)."""

import django.db.models.deletion
import kube.validators
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0015_pod_container_state'),
        ('queues', '0005_root_queue'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='PodGroup',
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
                        ('min_member', models.PositiveIntegerField(default=0)),
                        ('min_task_member', models.JSONField(blank=True, default=dict, help_text='task → minimum')),
                        ('min_resources', models.JSONField(blank=True, default=dict, help_text='resource → milli-units')),
                        ('queue', models.CharField(default='default', max_length=63)),
                        ('priority_class_name', models.CharField(blank=True, max_length=253)),
                        ('phase', models.CharField(choices=[('Pending', 'Pending'), ('Inqueue', 'Inqueue'), ('Running', 'Running'), ('Unknown', 'Unknown'), ('Completed', 'Completed')], default='Pending', max_length=16)),
                        ('conditions', models.JSONField(blank=True, default=list)),
                        ('running', models.PositiveIntegerField(default=0)),
                        ('succeeded', models.PositiveIntegerField(default=0)),
                        ('failed', models.PositiveIntegerField(default=0)),
                        ('job', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='pod_groups', to='jobs.job')),
                    ],
                    options={
                        'db_table': 'jobs_podgroup',
                        'ordering': ['namespace', 'name'],
                        'indexes': [models.Index(fields=['queue'], name='podgroup_queue')],
                        'constraints': [models.UniqueConstraint(fields=('namespace', 'name'), name='podgroup_unique_name'), models.CheckConstraint(condition=models.Q(('phase__in', ['Pending', 'Inqueue', 'Running', 'Unknown', 'Completed'])), name='podgroup_phase_valid')],
                    },
                ),
            ],
        ),
    ]
