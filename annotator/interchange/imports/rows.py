"""Writing the rows of a campaign-scale import: plain tuples, one COPY (PostgreSQL) or one
executemany a batch (SQLite).

The importers of NTCIREVAL files write millions of ranked documents and hundreds of thousands of
entities, memberships and history events. `bulk_create` spends most of its time building a model
instance and per-row, per-field SQL for each (most of `import_ntcireval`:
docs/benchmarks-history.md, "NTCIREVAL and run imports at campaign scale"), so these give the
database the values directly; its constraints check them all the same, and the caller's
transaction keeps the import atomic.

Values are what the database driver takes as they are (int, str, float, bool, None), except
JSON and date-time columns, which go through their field's own preparation (a list becomes
JSON text on SQLite and a jsonb on PostgreSQL; a datetime gets the database's time zone form).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import islice, repeat

from django.db import DEFAULT_DB_ALIAS, connections, models
from django.db.backends.base.operations import BaseDatabaseOperations

__all__ = ["BATCH", "insert_rows", "select_rows", "update_rows"]

BATCH = 5000  # rows of one executemany: bounded memory, few round trips
ROWS_PER_STATEMENT = 500  # SQLite's many-row INSERTs: at most this, or fewer as its parameter limit says (PostgreSQL COPYs)
PREPARED_TYPES = {"JSONField", "DateTimeField"}


def insert_rows(model: type[models.Model], columns: Sequence[str], rows: Iterable[Sequence],
                same: Mapping[str, object] | None = None) -> int:
    """INSERT the rows (one value per column, by attname: ``topic_id``); returns how many.
    `same` gives the columns whose value is one for all the rows (an import's annotator, its
    time) once, not in every row.

    PostgreSQL: one COPY ... FROM STDIN. Its client-side binding re-parses a many-row INSERT's
    text on every statement (a statement that long is never cached), and the server parses its
    thousands of parameters again (docs/benchmarks-history.md, "Ranked-list runs").
    SQLite: many rows a statement, as many as it takes parameters (999): far fewer statements
    than one row a statement. The `same` values are numbered parameters (``?1``) every row of the
    statement names, bound once: the history events of `import_ntcireval` bind two or three
    values a row, not eleven (docs/benchmarks-history.md, "Ranked-list runs")."""
    connection = connections[DEFAULT_DB_ALIAS]
    quote = connection.ops.quote_name
    same = dict(same or {})
    fields = [model._meta.get_field(c) for c in columns]
    same_fields = [model._meta.get_field(c) for c in same]
    constants = [field.get_db_prep_save(value, connection) if field.get_internal_type() in PREPARED_TYPES else value
                 for field, value in zip(same_fields, same.values())]
    table = quote(model._meta.db_table)
    if connection.vendor == "postgresql":
        names = ", ".join(quote(f.column) for f in [*fields, *same_fields])
        return _copy(connection, f"COPY {table} ({names}) FROM STDIN", _prepared(connection, fields, rows, BATCH), constants)
    # The same values first in each row's group, numbered: a plain ? after them is the next
    # number not taken (SQLite's rule), so every row's ? are its own values, one row after another.
    head = f"INSERT INTO {table} ({', '.join(quote(f.column) for f in [*same_fields, *fields])}) VALUES "
    group = f"({', '.join([*(f'?{i}' for i in range(1, len(constants) + 1)), *['?'] * len(fields)])})"
    width = len(fields)
    per_statement = max(1, min(BATCH, ROWS_PER_STATEMENT, (connection.features.max_query_params - len(constants)) // max(1, width)))
    many = head + ", ".join([group] * per_statement)
    count = 0
    with connection.cursor() as cursor:
        for size, batch in _prepared(connection, fields, rows, BATCH - BATCH % per_statement):
            values = [None] * (size * width)  # the rows' values one row after another
            for i, column in enumerate(batch):
                values[i::width] = column
            step = per_statement * width
            whole = size - size % per_statement
            if whole:
                cursor.executemany(many, [constants + values[start : start + step] for start in range(0, whole * width, step)])
            if whole < size:  # executemany here too: Django's debug cursor renders one execute's SQL with %s
                cursor.executemany(head + ", ".join([group] * (size - whole)), [constants + values[whole * width :]])
            count += size
    return count


def _copy(connection, sql: str, batches: Iterable[tuple[int, list[Sequence]]], constants: list) -> int:
    """COPY the rows in (psycopg adapts each value as it would a parameter: Jsonb, bytea, ...)."""
    count = 0
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for _, columns in batches:
            for row in zip(*columns):
                copy.write_row((*row, *constants))
                count += 1
    return count


def update_rows(model: type[models.Model], columns: Sequence[str], rows: Iterable[Sequence], bump: str | None = None) -> int:
    """UPDATE rows given as (*values of `columns`, pk); `bump` names an integer column that
    goes up by one (a version, so that an edit based on the old state is refused)."""
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    assignments = [f"{quote(_column(model, c))} = %s" for c in columns]
    if bump is not None:
        assignments.append(f"{quote(_column(model, bump))} = {quote(_column(model, bump))} + 1")
    sql = (f"UPDATE {quote(model._meta.db_table)} SET {', '.join(assignments)} "
           f"WHERE {quote(model._meta.pk.column)} = %s")
    fields = [model._meta.get_field(c) for c in [*columns, model._meta.pk.attname]]
    return _execute_many(sql, _prepared(connections[DEFAULT_DB_ALIAS], fields, rows, BATCH))


def select_rows(model: type[models.Model], columns: Sequence[str], equal: dict[str, object], column: str,
                within: Iterable) -> list[tuple]:
    """The `columns` (by attname) of the rows whose `equal` columns have those values and whose
    `column` is one of `within`, as the driver gives them (no field conversion: for plain
    columns, not JSON), in one SELECT per 900 values. A lookup repeated for each batch of an
    import, without building the ORM's query each time (a tenth of `import_ntcireval`)."""
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    conditions = [f"{quote(_column(model, c))} = %s" for c in equal]
    head = (f"SELECT {', '.join(quote(_column(model, c)) for c in columns)} FROM {quote(model._meta.db_table)} "
            f"WHERE {' AND '.join([*conditions, ''])}{quote(_column(model, column))} IN ")
    values, found = list(within), []
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        for start in range(0, len(values), 900):  # parameters of one statement (SQLite: 999)
            chunk = values[start : start + 900]
            cursor.execute(f"{head}({', '.join(['%s'] * len(chunk))})", [*equal.values(), *chunk])
            found.extend(cursor.fetchall())
    return found


def _column(model: type[models.Model], name: str) -> str:
    return model._meta.pk.column if name == "pk" else model._meta.get_field(name).column


def _prepared(connection, fields: Sequence[models.Field], rows: Iterable[Sequence], size: int) -> Iterator[tuple[int, list[Sequence]]]:
    """The rows `size` at a time as (how many, their columns), the JSON and date-time columns
    prepared a column at a time: a comprehension or a `map` a column, not a Python call a row
    (`import_ntcireval`'s history events and memberships: docs/benchmarks-history.md,
    "Ranked-list runs")."""
    preparations = [(i, _json_column(connection, field) if field.get_internal_type() == "JSONField" else _date_time_column(connection, field))
                    for i, field in enumerate(fields) if field.get_internal_type() in PREPARED_TYPES]
    rows = iter(rows)
    while batch := list(islice(rows, size)):
        columns = list(zip(*batch))
        for i, prepare in preparations:
            columns[i] = prepare(columns[i])
        yield len(batch), columns


def _date_time_column(connection, field: models.Field) -> Callable[[Sequence], Sequence]:
    """A date-time column: an import stamps its rows with one time, prepared once."""
    def prepare(values: Sequence) -> Sequence:
        prepared = {value: field.get_db_prep_save(value, connection) for value in set(values)}
        return list(map(prepared.__getitem__, values))
    return prepare


def _json_column(connection, field: models.Field) -> Callable[[Sequence], list]:
    """A JSON column: a list or a dict becomes what `get_db_prep_save` makes of it, by one
    encoder made once (`_json_texts`); a list given again (a membership vector repeats as one
    object: imports.ntcireval) is encoded once; a dict (a history state, rarely repeated)
    each time; anything else (None, a number) through the field."""
    texts = _json_texts(connection, field.encoder)

    def prepare(values: Sequence) -> list:
        if all(value.__class__ is dict for value in values):  # history states
            return texts(values)
        lists = {id(value): value for value in values if value.__class__ is list}  # alive in `values`: ids are theirs
        text = dict(zip(lists, texts(list(lists.values()))))
        return [text[id(value)] if value.__class__ is list else field.get_db_prep_save(value, connection) for value in values]
    return prepare


def _json_texts(connection, encoder) -> Callable[[Sequence[list | dict]], list]:
    """What JSONField.get_db_prep_save ends in for each of some lists and dicts
    (`adapt_json_value`), without its three layers of calls a value. Where that is `json.dumps`
    (SQLite), the text of json.dumps itself (the same C encoder, made once, not once a value,
    called by `map`: no Python call a value; docs/benchmarks-history.md, "Third pass");
    elsewhere (a jsonb on PostgreSQL) the backend's own adapter."""
    adapt = connection.ops.adapt_json_value
    make = json.encoder.c_make_encoder
    if type(connection.ops).adapt_json_value is not BaseDatabaseOperations.adapt_json_value or encoder is not None or make is None:
        return lambda values: [adapt(value, encoder) for value in values]
    # json.dumps(value) is JSONEncoder().encode(value): for a list or a dict, this encoder's
    # chunks joined (JSONEncoder.iterencode, one-shot, no indent).
    default = json.JSONEncoder()
    chunks = make({} if default.check_circular else None, default.default, json.encoder.encode_basestring_ascii,
                  default.indent, default.key_separator, default.item_separator, default.sort_keys, default.skipkeys,
                  default.allow_nan)
    return lambda values: list(map("".join, map(chunks, values, repeat(0))))


def _execute_many(sql: str, batches: Iterable[tuple[int, list[Sequence]]]) -> int:
    count = 0
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        for size, columns in batches:
            cursor.executemany(sql, list(zip(*columns)))
            count += size
    return count
