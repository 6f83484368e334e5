# The lowest DistrSim of each stored row's scored system turns per attribute set: the worst
# cases page finds the conversations holding a campaign's lowest turns from it and re-scores
# only those. Rows stored before it have none (null) and are re-scored as before.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotator', '0016_import_staging'),
    ]

    operations = [
        migrations.AddField(
            model_name='storedfigures',
            name='lowest_distr_sim',
            field=models.JSONField(help_text='The lowest DistrSim of a scored system turn per attribute set: name -> value (a set with none is left out; null: stored before this was kept)', null=True),
        ),
    ]
