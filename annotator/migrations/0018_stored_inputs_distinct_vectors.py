"""Stored figures keep each conversation's distinct membership vectors once (annotator.scores.
stored.distinct_vectors) instead of one vector per nugget. The rows are derived data: the old
ones are deleted here, and each is stored again when a page first reads its conversation (or
at the next save, import or settings change)."""

from django.db import migrations


def forget_stored_figures(apps, schema_editor):
    apps.get_model("annotator", "StoredFigures").objects.all()._raw_delete(schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [("annotator", "0017_stored_lowest_distr_sim")]

    operations = [migrations.RunPython(forget_stored_figures, migrations.RunPython.noop)]
