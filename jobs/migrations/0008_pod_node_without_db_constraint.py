"""``Pod.node`` without a database constraint, as ``spec.nodeName`` in Kubernetes.

The deferred foreign-key check of each bound pod cost 45 ms at the commit of 10,000 binds.
What it guarded (a pod left on a deleted node) is kept by lock order instead: a session's bind
and a node's deletion both lock the node's row first (``core.node_deletion``).
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0007_hot_status_updates'),
        ('scheduler', '0003_leader_lease'),
    ]

    operations = [
        migrations.AlterField(
            model_name='pod',
            name='node',
            field=models.ForeignKey(blank=True, db_constraint=False, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='pods', to='scheduler.node'),
        ),
    ]
