"""The scoring engine sums each row's products itself instead of multiplying matrices (scoring.
divergence.rnod, scoring.gfrc's GF, scoring.gfr's ERR and iRBU): BLAS rounded a row by where it
fell in the matrix, so a conversation's stored figure (scored among its campaign's) could differ
in its last bit from the same conversation scored alone (the workspace panel, a fresh export).
The stored figures and ranked-list figures are derived data, kept from the old sums: they are
deleted here, and each is stored again when a page first reads it (or at the next save, import
or settings change), as migration 0018 did."""

from django.db import migrations


def forget_derived_figures(apps, schema_editor):
    for model in ("StoredFigures", "RankedListFigures"):
        apps.get_model("annotator", model).objects.all()._raw_delete(schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [("annotator", "0024_harvesting")]

    operations = [migrations.RunPython(forget_derived_figures, migrations.RunPython.noop)]
