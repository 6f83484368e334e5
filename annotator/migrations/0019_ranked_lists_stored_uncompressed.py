"""PostgreSQL keeps a ranked list's arrays uncompressed (STORAGE EXTERNAL: out of line, no
pglz). Compressing 5,000 lists of 1,000 document numbers and scores cost the server about 2 s
of a FairWeb-size round's 12 s import for a third less space (78 -> 117 MB, still a third of
the run files: docs/benchmarks.md); reading them back decompresses nothing. SQLite has no such
setting: nothing to do there."""

from django.db import migrations

COLUMNS = ("documents", "unjudged", "scores", "stated_ranks")


def storage(kind: str):
    def alter(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        table = schema_editor.quote_name(apps.get_model("annotator", "RankedList")._meta.db_table)
        for column in COLUMNS:
            schema_editor.execute(f"ALTER TABLE {table} ALTER COLUMN {schema_editor.quote_name(column)} SET STORAGE {kind}")

    return alter


class Migration(migrations.Migration):
    dependencies = [("annotator", "0018_stored_inputs_distinct_vectors")]

    operations = [migrations.RunPython(storage("EXTERNAL"), storage("EXTENDED"))]
