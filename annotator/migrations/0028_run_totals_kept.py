"""Each run's totals of its stored figures, kept, and the triggers that say when they are stale.

A page about one conversation (the adjudication page) needs each run's sums and counts of its
conversations' judges' R, GF and GFRC, and the overview the campaign's conversations,
assignments, done and nuggets. Each is a GROUP BY over every conversation of the campaign (0.09
and 0.18 s at 100,000). They are kept in `StoredRunTotals`, one row a run, summed again by the
reader that finds them stale (annotator.judgments.run_totals).

What makes them stale is any write to what they count: a stored figure (R, GF, GFRC; its
annotator), a nugget (its turn, its annotator), an assignment (who is the first human assignee;
done), a conversation (its run, its topic, its gold), an annotator's profile (whether it is an
automatic judge: never the gold, its assignments and nuggets not counted as people's). Many paths
write those (saves, imports, adjudication, assigning, people leaving, cascades, the admin), so
the database says it, not each path: a trigger on each table adds the runs a statement touched to
`StaleRunTotals`. Writers only add rows there (no lock for another writer to wait on); a stale
row is never wrong, only a sum done again.

SQLite: row triggers (one writer at a time; a run is named once). PostgreSQL: statement triggers
over the statement's transition tables (one INSERT ... SELECT DISTINCT a statement, whatever the
number of rows).
"""

import django.db.models.deletion
from django.db import migrations, models

# model -> (the columns whose change counts, how a row names its runs)
WATCHED = {
    "StoredFigures": (("r", "gf", "gfrc", "annotator_id", "conversation_id"), "conversation_id"),
    "Nugget": (("turn_id", "annotator_id"), "turn_id"),
    "Assignment": (("conversation_id", "annotator_id", "assigned_at", "done_at"), "conversation_id"),
    "Conversation": (("run_id", "topic_id", "gold_annotator_id"), "run_id"),
    "AnnotatorProfile": (("is_automatic", "user_id"), "user_id"),
}
# model -> the column of StaleRunTotals whose rows go with a deleted row of it
GONE_WITH = {"Run": "run_id", "Campaign": "campaign_id"}
MOVED = "annotator_stale_run_totals_run_update"  # a run moved into another campaign (a staged one, published)
PREFIX = "annotator_stale_run_totals"


def _tables(apps, quote):
    return {name: quote(apps.get_model("annotator", name)._meta.db_table)
            for name in (*WATCHED, *GONE_WITH, "Turn", "StaleRunTotals")}


def _runs_of(key: str, rows: str, tables: dict) -> str:
    """SELECT run_id of the runs the rows `rows` (a derived table with the column `key`) name."""
    if key == "conversation_id":
        return f"SELECT c.run_id FROM {tables['Conversation']} AS c WHERE c.id IN (SELECT r.conversation_id FROM {rows} AS r)"
    if key == "run_id":
        return f"SELECT r.run_id FROM {rows} AS r"
    if key == "turn_id":
        return (f"SELECT c.run_id FROM {tables['Turn']} AS t JOIN {tables['Conversation']} AS c ON c.id = t.conversation_id"
                f" WHERE t.id IN (SELECT r.turn_id FROM {rows} AS r)")
    # a profile: the runs of the conversations its user is assigned (whether they may be gold,
    # whose assignments count) or has nuggets in (whose nuggets count)
    return (f"SELECT c.run_id FROM {tables['Assignment']} AS a JOIN {tables['Conversation']} AS c"
            f" ON c.id = a.conversation_id WHERE a.annotator_id IN (SELECT r.user_id FROM {rows} AS r)"
            f" UNION SELECT c.run_id FROM {tables['Nugget']} AS n JOIN {tables['Turn']} AS t ON t.id = n.turn_id"
            f" JOIN {tables['Conversation']} AS c ON c.id = t.conversation_id"
            f" WHERE n.annotator_id IN (SELECT r.user_id FROM {rows} AS r)")


def _sqlite(tables: dict) -> list[str]:
    """Row triggers; one writer at a time, so a run already named is not named again. Each
    looks its run up by primary key (a derived table a row made 100,000 updates 0.75 s slower)."""
    stale, conversation, assignment = tables["StaleRunTotals"], tables["Conversation"], tables["Assignment"]
    statements = []
    for model, (columns, key) in WATCHED.items():
        def mark(row: str) -> str:
            runs = {
                "conversation_id": f"SELECT c.run_id FROM {conversation} AS c WHERE c.id = {row}.conversation_id",
                "run_id": f"SELECT {row}.run_id AS run_id",
                "turn_id": (f"SELECT c.run_id FROM {tables['Turn']} AS t JOIN {conversation} AS c"
                            f" ON c.id = t.conversation_id WHERE t.id = {row}.turn_id"),
                "user_id": (f"SELECT c.run_id FROM {assignment} AS a JOIN {conversation} AS c"
                            f" ON c.id = a.conversation_id WHERE a.annotator_id = {row}.user_id"
                            f" UNION SELECT c.run_id FROM {tables['Nugget']} AS n JOIN {tables['Turn']} AS t"
                            f" ON t.id = n.turn_id JOIN {conversation} AS c ON c.id = t.conversation_id"
                            f" WHERE n.annotator_id = {row}.user_id"),
            }[key]
            return (f"INSERT INTO {stale} (run_id) SELECT named.run_id FROM ({runs}) AS named"
                    f" WHERE NOT EXISTS (SELECT 1 FROM {stale} AS s WHERE s.run_id = named.run_id);")
        name, table = f"{PREFIX}_{model.lower()}", tables[model]
        inserted, deleted = ("NEW.is_automatic", "OLD.is_automatic") if key == "user_id" else ("1", "1")
        changed = "(" + " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in columns) + ")"
        if model == "StoredFigures":  # a campaign named whole: none of its runs one by one
            inserted, deleted, changed = (
                f"{when} AND NOT EXISTS (SELECT 1 FROM {stale} AS s WHERE s.campaign_id = {row}.campaign_id)"
                for when, row in ((inserted, "NEW"), (deleted, "OLD"), (changed, "NEW")))
        statements += [
            f"CREATE TRIGGER {name}_insert AFTER INSERT ON {table} WHEN {inserted} BEGIN {mark('NEW')} END",
            f"CREATE TRIGGER {name}_delete AFTER DELETE ON {table} WHEN {deleted} BEGIN {mark('OLD')} END",
            f"CREATE TRIGGER {name}_update AFTER UPDATE ON {table} WHEN {changed} BEGIN {mark('OLD')} {mark('NEW')} END",
        ]
    for model, column in GONE_WITH.items():
        statements.append(f"CREATE TRIGGER {PREFIX}_{model.lower()}_delete AFTER DELETE ON {tables[model]}"
                          f" BEGIN DELETE FROM {stale} WHERE {column} = OLD.id; END")
    statements.append(f"CREATE TRIGGER {MOVED} AFTER UPDATE ON {tables['Run']} WHEN OLD.campaign_id IS NOT NEW.campaign_id"
                      f" BEGIN INSERT INTO {stale} (run_id) SELECT NEW.id"
                      f" WHERE NOT EXISTS (SELECT 1 FROM {stale} AS s WHERE s.run_id = NEW.id); END")
    return statements


NAMED = "annotator.campaign_named"  # PostgreSQL: 'on' while a writer re-writes a campaign it named whole
OWN = "pg_current_xact_id()::xid"  # PostgreSQL: a stale row this transaction wrote has it as its xmin


def _postgresql(tables: dict) -> list[str]:
    """Statement triggers over the transition tables; the stored figures' rows, which hold their
    inputs' JSON, by row triggers instead (a transition table copies every row: 3 s of a
    100,000-conversation new L), which skip every row while a transaction re-writes a campaign
    it has named whole (`NAMED`), and name a run once a transaction. Writers never skip a run
    named by another: a reader may be deleting that row, having summed before this writer commits."""
    stale = tables["StaleRunTotals"]
    statements = []
    for model, (columns, key) in WATCHED.items():
        name, table = f"{PREFIX}_{model.lower()}", tables[model]
        if model == "StoredFigures":
            statements += _pg_stored_figures(name, table, columns, tables)
            continue
        automatic = " WHERE is_automatic" if key == "user_id" else ""
        differs = (f"FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id WHERE ({', '.join(f'o.{c}' for c in columns)})"
                   f" IS DISTINCT FROM ({', '.join(f'n.{c}' for c in columns)})")
        rows = {
            "insert": ("NEW TABLE AS new_rows", f"(SELECT {key} FROM new_rows{automatic})"),
            "delete": ("OLD TABLE AS old_rows", f"(SELECT {key} FROM old_rows{automatic})"),
            "update": ("OLD TABLE AS old_rows NEW TABLE AS new_rows",
                       f"(SELECT o.{key} {differs} UNION ALL SELECT n.{key} {differs})"),
        }
        for event, (transition, changed) in rows.items():
            statements += [
                f"CREATE FUNCTION {name}_{event}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                f" INSERT INTO {stale} (run_id) SELECT DISTINCT named.run_id FROM ({_runs_of(key, changed, tables)}) AS named"
                f" WHERE NOT EXISTS (SELECT 1 FROM {stale} AS s WHERE s.run_id = named.run_id AND s.xmin = {OWN});"
                f" RETURN NULL; END $$",
                f"CREATE TRIGGER {name}_{event} AFTER {event.upper()} ON {table} REFERENCING {transition}"
                f" FOR EACH STATEMENT EXECUTE FUNCTION {name}_{event}()",
            ]
    for model, column in GONE_WITH.items():
        name = f"{PREFIX}_{model.lower()}_delete"
        statements += [
            f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            f" DELETE FROM {stale} WHERE {column} IN (SELECT id FROM old_rows); RETURN NULL; END $$",
            f"CREATE TRIGGER {name} AFTER DELETE ON {tables[model]} REFERENCING OLD TABLE AS old_rows"
            f" FOR EACH STATEMENT EXECUTE FUNCTION {name}()",
        ]
    statements += [
        f"CREATE FUNCTION {MOVED}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
        f" INSERT INTO {stale} (run_id) SELECT n.id FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id"
        f" WHERE o.campaign_id IS DISTINCT FROM n.campaign_id; RETURN NULL; END $$",
        f"CREATE TRIGGER {MOVED} AFTER UPDATE ON {tables['Run']} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows"
        f" FOR EACH STATEMENT EXECUTE FUNCTION {MOVED}()",
    ]
    return statements


def _pg_stored_figures(name: str, table: str, columns: tuple, tables: dict) -> list[str]:
    stale, conversation = tables["StaleRunTotals"], tables["Conversation"]
    # a run this transaction has named already is not named again (its row commits with this
    # write, or not at all): an import's 100,000 rows name each run once, not once a row
    mark = {row: f"INSERT INTO {stale} (run_id) SELECT c.run_id FROM {conversation} AS c WHERE c.id = {row}.conversation_id"
                 f" AND NOT EXISTS (SELECT 1 FROM {stale} AS s WHERE s.run_id = c.run_id AND s.xmin = {OWN});"
            for row in ("OLD", "NEW")}
    unnamed = f"current_setting('{NAMED}', true) IS DISTINCT FROM 'on'"
    changed = f"({', '.join(f'OLD.{c}' for c in columns)}) IS DISTINCT FROM ({', '.join(f'NEW.{c}' for c in columns)})"
    statements = [
        f"CREATE FUNCTION {name}_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
        f" IF TG_OP <> 'INSERT' THEN {mark['OLD']} END IF;"
        f" IF TG_OP <> 'DELETE' THEN {mark['NEW']} END IF;"
        f" RETURN NULL; END $$",
    ]
    for event, when in (("insert", unnamed), ("delete", unnamed), ("update", f"{unnamed} AND {changed}")):
        statements.append(f"CREATE TRIGGER {name}_{event} AFTER {event.upper()} ON {table} FOR EACH ROW"
                          f" WHEN ({when}) EXECUTE FUNCTION {name}_row()")
    return statements


def forwards(apps, schema_editor):
    tables = _tables(apps, schema_editor.quote_name)
    vendor = schema_editor.connection.vendor
    for statement in {"sqlite": _sqlite, "postgresql": _postgresql}[vendor](tables):
        schema_editor.execute(statement, params=None)


def backwards(apps, schema_editor):
    tables = _tables(apps, schema_editor.quote_name)
    named = [(model, f"{PREFIX}_{model.lower()}_{event}") for model in WATCHED for event in ("insert", "delete", "update")]
    for model, name in named + [(model, f"{PREFIX}_{model.lower()}_delete") for model in GONE_WITH] + [("Run", MOVED)]:
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {name} ON {tables[model]}")
            schema_editor.execute(f"DROP FUNCTION IF EXISTS {name}()")
        else:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {PREFIX}_storedfigures_row()")


class Migration(migrations.Migration):

    dependencies = [
        ('annotator', '0027_stored_figures_updated_in_place'),
    ]

    operations = [
        migrations.CreateModel(
            name='StaleRunTotals',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('run_id', models.BigIntegerField(db_index=True, null=True)),
                ('campaign_id', models.BigIntegerField(db_index=True, null=True)),
            ],
            options={
                'constraints': [models.CheckConstraint(condition=models.Q(('run_id__isnull', True), ('campaign_id__isnull', True), _connector='XOR'), name='stale_run_totals_names_a_run_or_a_campaign')],
            },
        ),
        migrations.CreateModel(
            name='StoredRunTotals',
            fields=[
                ('run', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='annotator.run')),
                ('conversations', models.PositiveIntegerField()),
                ('unassigned', models.PositiveIntegerField()),
                ('assignments', models.PositiveIntegerField()),
                ('done', models.PositiveIntegerField()),
                ('nuggets', models.PositiveIntegerField(help_text="people's")),
                ('judges_nuggets', models.PositiveIntegerField(help_text="automatic judges'")),
                ('r_sum', models.FloatField()),
                ('r_count', models.PositiveIntegerField()),
                ('gf_sum', models.FloatField()),
                ('gf_count', models.PositiveIntegerField()),
                ('gfrc_sum', models.FloatField()),
                ('gfrc_count', models.PositiveIntegerField()),
            ],
        ),
        migrations.RunPython(forwards, backwards),
    ]
