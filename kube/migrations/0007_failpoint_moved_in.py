"""Failpoint moves in from the scheduler (state only): its rows stay in the table the scheduler
app made for them until 0008 renames it; no row is copied."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('kube', '0006_owner_link_help'),
        ('scheduler', '0008_node_moved_to_core'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Failpoint',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=64, unique=True)),
                        ('action', models.CharField(blank=True, max_length=16)),
                        ('value', models.FloatField(default=0)),
                        ('match', models.CharField(blank=True, max_length=253)),
                        ('times', models.PositiveIntegerField(blank=True, null=True)),
                        ('armed_at', models.DateTimeField(auto_now=True)),
                    ],
                    options={
                        'db_table': 'scheduler_failpoint',
                    },
                ),
            ],
        ),
    ]
