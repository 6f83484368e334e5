"""PostgreSQL updates the stored figures in place.

A new L rewrites every stored row, a new alpha every row's GFRC. PostgreSQL writes each as a new
version of the row, and unless the version fits on the row's page and no indexed column changed
(a heap-only tuple), every index of the table gets an entry for it too. The index of the summed
columns (0026) holds R, GF and GFRC, so every update changed it: on PostgreSQL it is dropped,
and the table's pages are kept half empty (fillfactor 50) for the new versions. At 20,000
conversations a new alpha took 0.07 s instead of 0.56 s, a new L 1.1 s instead of 1.5-2.0 s, and
the pages that read the figures stayed within 10% (docs/benchmarks.md). SQLite updates a row
where it is: its index stays, and the runs' sums read the figures from it alone
(tests/scores/test_stored_figures_indexes.py holds both)."""

from django.db import migrations

SUMS_INDEX = "stored_figures_sums_idx"
SUMMED = ("conversation_id", "annotator_id", "r", "gf", "gfrc")


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        table = schema_editor.quote_name(apps.get_model("annotator", "StoredFigures")._meta.db_table)
        schema_editor.execute(f"DROP INDEX IF EXISTS {SUMS_INDEX}")
        schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = 50)")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        table = schema_editor.quote_name(apps.get_model("annotator", "StoredFigures")._meta.db_table)
        schema_editor.execute(f"ALTER TABLE {table} RESET (fillfactor)")
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {SUMS_INDEX} ON {table} ({', '.join(SUMMED)})")


class Migration(migrations.Migration):

    dependencies = [
        ("annotator", "0026_stored_figures_sums_index"),
    ]

    operations = [
        # the index leaves the models' state; SQLite keeps it in its database
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.RemoveIndex(model_name="storedfigures", name=SUMS_INDEX)],
            database_operations=[migrations.RunPython(forwards, backwards)],
        ),
    ]
