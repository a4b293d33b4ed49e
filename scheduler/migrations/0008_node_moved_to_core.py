"""Node and NodeLoadStamp moved to core: the scheduler app forgets them (state only)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('scheduler', '0007_node_info_and_addresses'),
        ('core', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='Node'),
                migrations.DeleteModel(name='NodeLoadStamp'),
            ],
        ),
    ]
