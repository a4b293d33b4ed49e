# The simulated kubelet's container state: restarts, back-off, grace periods (issue 21).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0014_delayed_actions'),
    ]

    operations = [
        migrations.AddField(
            model_name='pod',
            name='running_since',
            field=models.DateTimeField(blank=True, help_text='when the current container started running', null=True),
        ),
        migrations.AddField(
            model_name='pod',
            name='run_until',
            field=models.DateTimeField(blank=True, help_text="when the running container's simulated run ends", null=True),
        ),
        migrations.AddField(
            model_name='pod',
            name='restart_count',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='pod',
            name='back_off_until',
            field=models.DateTimeField(blank=True, help_text='CrashLoopBackOff: when the container restarts', null=True),
        ),
        migrations.AddField(
            model_name='pod',
            name='back_off_seconds',
            field=models.FloatField(default=0.0, help_text='the last back-off delay'),
        ),
        migrations.AddField(
            model_name='pod',
            name='last_state',
            field=models.JSONField(blank=True, default=dict, help_text='containerStatuses[].lastState (the last crash)'),
        ),
        migrations.AddField(
            model_name='pod',
            name='deletion_grace_seconds',
            field=models.PositiveIntegerField(blank=True, help_text='metadata.deletionGracePeriodSeconds of a deletion', null=True),
        ),
    ]
