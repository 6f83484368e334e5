"""The SQL of stored figures: rows of `StoredFigures` written many a statement, updated,
deleted, locked and read back with their JSON columns decoded once for all the rows a page keeps.
Nothing here knows what the figures mean (annotator.scores.stored.figures does)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from contextlib import contextmanager
from itertools import islice

import orjson
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import TextField
from django.db.models.functions import Cast

from annotator.models import Campaign, Conversation, StaleRunTotals, StoredFigures

__all__ = ["CHUNK", "chunks", "lock", "delete_rows", "insert_rows", "update_figures", "campaign_named", "stored_rows",
           "decoded", "inputs_by_type", "JSON_COLUMNS"]

CHUNK = 500  # ids of one IN (...): under SQLite's cap on parameters


def chunks(items: Sequence, size: int = CHUNK):
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def lock(ids: Sequence[int]) -> None:
    """Serialise the stores of these conversations (PostgreSQL; SQLite serialises writers
    already): a second save waits here, then reads what the first committed, so neither stores
    figures without the other's change, nor inserts a row the other has just inserted. NO KEY
    UPDATE: other saves' foreign-key checks (FOR KEY SHARE) do not wait on it."""
    if connection.features.has_select_for_update:
        for chunk in chunks(ids):
            list(Conversation.objects.select_for_update(no_key=True, of=("self",)).filter(pk__in=chunk)
                 .order_by("pk").values_list("pk", flat=True))


def delete_rows(ids: list[int], annotators: list[int] | None) -> None:
    for chunk in chunks(ids):
        query = StoredFigures.objects.filter(conversation_id__in=chunk)
        if annotators is not None:
            query = query.filter(annotator_id__in=annotators)
        query._raw_delete(query.db)  # no cascades, no signals: one DELETE


COLUMNS = ("campaign_id", "conversation_id", "annotator_id", "r", "gf", "gfrc", "gf_sets", "inputs", "lowest_distr_sim")


ROWS_PER_STATEMENT = 100  # 900 parameters: under SQLite's 999


def insert_rows(campaign_id: int, rows: Sequence[tuple], *, replace: bool = False) -> int:
    """INSERT the rows, many a statement, the JSON columns through their field's preparation;
    `replace`: a row of a (conversation, annotator) already stored takes the new values (rows of
    annotators: the one without is not unique by that key)."""
    if not rows:
        return 0
    meta = StoredFigures._meta
    quote = connection.ops.quote_name
    tail = ""
    if replace:
        key = ", ".join(quote(meta.get_field(c).column) for c in ("conversation_id", "annotator_id"))
        tail = f" ON CONFLICT ({key}) DO UPDATE SET " + ", ".join(
            f"{quote(meta.get_field(c).column)} = excluded.{quote(meta.get_field(c).column)}"
            for c in COLUMNS if c not in ("conversation_id", "annotator_id"))
    as_json = _json_values()
    head = (f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(meta.get_field(c).column) for c in COLUMNS)}) VALUES ")
    group = "(" + ", ".join(["%s"] * len(COLUMNS)) + ")"
    values = [
        [campaign_id, c, a, r, gf, g, as_json(sets), as_json(i), as_json(low)]
        for c, a, r, gf, g, sets, i, low in rows
    ]
    with connection.cursor() as cursor:
        whole = len(values) - len(values) % ROWS_PER_STATEMENT
        if whole:
            many = head + ", ".join([group] * ROWS_PER_STATEMENT) + tail
            cursor.executemany(many, [[v for row in values[i:i + ROWS_PER_STATEMENT] for v in row]
                                      for i in range(0, whole, ROWS_PER_STATEMENT)])
        if whole < len(values):
            rest = values[whole:]
            cursor.execute(head + ", ".join([group] * len(rest)) + tail, [v for row in rest for v in row])
    return len(values)


def _json_values():
    """What the JSON columns' `get_db_prep_save` makes of a value (the stored figures' fields have
    no encoder; None stays SQL NULL), with the backend's adapter looked up once: through the
    field, its three layers of calls and the connection proxy cost 3 s of a 100,000-conversation
    re-score's 9 s (docs/benchmarks.md)."""
    fields = [StoredFigures._meta.get_field(name) for name in JSON_COLUMNS]
    assert all(field.encoder is None for field in fields)
    adapt = connections[DEFAULT_DB_ALIAS].ops.adapt_json_value
    return lambda value: None if value is None else adapt(value, None)


def update_figures(rows: Sequence[tuple]) -> int:
    """UPDATE r, gf, gfrc, gf_sets, lowest_distr_sim of rows given as (r, gf, gfrc, gf_sets,
    lowest, id): the new figures written into a temporary table, then one UPDATE ... FROM it.
    One statement, not one a row: each statement of an executemany runs the table's triggers'
    program on its own (migration 0028), 0.7 s more for 200,000 rows on SQLite."""
    if connection.vendor == "postgresql":
        return _update_figures_copied(rows)
    meta = StoredFigures._meta
    quote = connection.ops.quote_name
    as_json = _json_values()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE {UPDATES} (id integer PRIMARY KEY, r real, gf real, gfrc real,"
                       " gf_sets text, lowest_distr_sim text)")
        for start in range(0, len(rows), 5000):
            cursor.executemany(f"INSERT INTO {UPDATES} VALUES (%s, %s, %s, %s, %s, %s)",
                               [(pk, r, gf, g, as_json(sets), as_json(low))
                                for r, gf, g, sets, low, pk in rows[start:start + 5000]])
        cursor.execute(f"UPDATE {quote(meta.db_table)} AS s SET r = u.r, gf = u.gf, gfrc = u.gfrc, gf_sets = u.gf_sets,"
                       f" lowest_distr_sim = u.lowest_distr_sim FROM {UPDATES} AS u WHERE s.{quote(meta.pk.column)} = u.id")
        cursor.execute(f"DROP TABLE {UPDATES}")
    return len(rows)


NAMED = "annotator.campaign_named"  # as migration 0028's PostgreSQL triggers read it


@contextmanager
def campaign_named(campaign_id: int):
    """Re-write every row of a campaign in the caller's transaction, having said once that all
    its runs' totals are stale (annotator.judgments.run_totals): the rows' triggers then name
    none of its runs one by one. SQLite's find the campaign named; PostgreSQL's read that this
    transaction is re-writing a campaign it named (a rollback undoes the setting with the rest)."""
    with transaction.atomic():
        StaleRunTotals.objects.create(campaign_id=campaign_id)
        postgresql = connection.vendor == "postgresql"
        if postgresql:
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config(%s, 'on', true)", [NAMED])
        yield
        if postgresql:
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config(%s, 'off', true)", [NAMED])


def _update_figures_copied(rows: Sequence[tuple]) -> int:
    """PostgreSQL: the new figures COPYed into a temporary table and applied by one UPDATE ...
    FROM it. An executemany sends each row's UPDATE through the planner and the executor on its
    own: 10 of a 100,000-conversation new L's 13 s (docs/benchmarks.md)."""
    meta = StoredFigures._meta
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE {UPDATES} (id bigint, r double precision, gf double precision,"
                       " gfrc double precision, gf_sets jsonb, lowest_distr_sim jsonb) ON COMMIT DROP")
        with cursor.cursor.copy(f"COPY {UPDATES} (id, r, gf, gfrc, gf_sets, lowest_distr_sim) FROM STDIN") as copy:
            # The JSON as text, which the server parses into jsonb: orjson writes the same values
            # as json.dumps (the shortest digits that give the float back) 15x faster; through
            # psycopg's Jsonb, json.dumps was 1.3 of a 100,000-conversation re-score's 7.6 s under
            # cProfile. The figures hold no NaN, which json.dumps would write and jsonb refuse
            # (orjson writes null).
            for r, gf, g, sets, low, pk in rows:
                copy.write_row((pk, r, gf, g, orjson.dumps(sets).decode(), None if low is None else orjson.dumps(low).decode()))
        cursor.execute(f"UPDATE {quote(meta.db_table)} AS s SET r = u.r, gf = u.gf, gfrc = u.gfrc, gf_sets = u.gf_sets,"
                       f" lowest_distr_sim = u.lowest_distr_sim FROM {UPDATES} AS u WHERE s.{quote(meta.pk.column)} = u.id")
        cursor.execute(f"DROP TABLE {UPDATES}")  # before the commit: a second re-score in this transaction
    return len(rows)


UPDATES = "stored_figures_updates"  # the temporary table of _update_figures_copied
JSON_COLUMNS = ("gf_sets", "inputs", "lowest_distr_sim")


def stored_rows(campaign: Campaign, columns: Sequence[str], annotators: set | None) -> dict[tuple, tuple]:
    """(conversation, annotator) -> the row's `columns`, its JSON columns (gf_sets, inputs) as
    their text: a campaign has a row per annotator and one with none, and only the rows a page
    keeps are decoded (`decoded`), once."""
    texts = {c: Cast(c, output_field=TextField()) for c in columns if c in JSON_COLUMNS}
    query = StoredFigures.objects.filter(campaign=campaign).annotate(**{f"{c}_text": t for c, t in texts.items()})
    rows = {}
    for row in query.values_list("conversation_id", "annotator_id", *(f"{c}_text" if c in texts else c for c in columns)):
        if annotators is None or row[1] is None or row[1] in annotators:
            rows[(row[0], row[1])] = row[2:]
    return rows


def decoded(rows: list[tuple], columns: Sequence[str]) -> list[tuple]:
    """The rows (of `stored_rows`) with their JSON columns decoded: one `json.loads` per column
    for all of them."""
    if not rows or not any(column in JSON_COLUMNS for column in columns):
        return list(rows)
    by_column = list(zip(*rows))  # transposed in C: no Python loop over a campaign's rows
    for k, column in enumerate(columns):
        if column in JSON_COLUMNS:
            by_column[k] = json.loads("[" + ",".join(value or "null" for value in by_column[k]) + "]")
    return list(zip(*by_column))


def inputs_by_type(campaign: Campaign) -> dict[int, list[tuple]]:
    """topic type id -> [(row id, conversation, annotator, inputs)] of every stored row."""
    by_type: dict[int, list[tuple]] = defaultdict(list)
    rows = list(StoredFigures.objects.filter(campaign=campaign).annotate(inputs_text=Cast("inputs", output_field=TextField()))
                .values_list("pk", "conversation_id", "annotator_id", "conversation__topic__topic_type_id", "inputs_text"))
    for (pk, conversation_id, annotator_id, type_id, _text), (inputs,) in zip(rows, decoded([r[4:] for r in rows], ["inputs"])):
        by_type[type_id].append((pk, conversation_id, annotator_id, inputs))
    return by_type
