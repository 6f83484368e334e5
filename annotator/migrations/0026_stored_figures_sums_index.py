"""An index the runs' sums read the stored figures from (annotator.scores.stored.totals), and on
SQLite the planner's statistics gathered again so that it knows the new index (as an import
does: annotator.interchange.imports.statistics)."""

from django.conf import settings
from django.db import migrations, models


def analyse(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("PRAGMA analysis_limit = 1000")
        schema_editor.execute("ANALYZE")


class Migration(migrations.Migration):

    dependencies = [
        ('annotator', '0025_figures_summed_along_rows'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name='storedfigures',
            index=models.Index(fields=['conversation', 'annotator', 'r', 'gf', 'gfrc'], name='stored_figures_sums_idx'),
        ),
        migrations.RunPython(analyse, migrations.RunPython.noop),
    ]
