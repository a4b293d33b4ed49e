"""Owner links name their kinds by the labels the models have since the move (core.pod)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('kube', '0005_namespace_moved_to_core'),
    ]

    operations = [
        migrations.AlterField(
            model_name='ownerlink',
            name='dependent_kind',
            field=models.CharField(help_text='Model label, e.g. core.pod', max_length=63),
        ),
    ]
