"""Writing the rows of a campaign-scale import: plain tuples, one COPY (PostgreSQL) or one
executemany a batch (SQLite).

The importers of NTCIREVAL files write millions of ranked documents and hundreds of thousands
of entities, memberships and history events. `bulk_create` spends most of its time building a
model instance and per-row, per-field SQL for each (three quarters of `import_ntcireval`:
docs/benchmarks.md), so these give the database the values directly; its constraints check
them all the same, and the caller's transaction keeps the import atomic.

Values are what the database driver takes as they are (int, str, float, bool, None), except
JSON and date-time columns, which go through their field's own preparation (a list becomes
JSON text on SQLite and a jsonb on PostgreSQL; a datetime gets the database's time zone form).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, islice

from django.db import DEFAULT_DB_ALIAS, connections, models
from django.db.backends.base.operations import BaseDatabaseOperations

__all__ = ["BATCH", "insert_rows", "select_rows", "update_rows"]

BATCH = 5000  # rows of one executemany: bounded memory, few round trips
ROWS_PER_STATEMENT = 500  # SQLite's many-row INSERTs: at most this, or fewer as its parameter limit says (PostgreSQL COPYs)
PREPARED_TYPES = {"JSONField", "DateTimeField"}
SHARED = 4096  # lists given again whose JSON is kept (an import's distinct membership vectors: a few dozen)


def insert_rows(model: type[models.Model], columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """INSERT the rows (one value per column, by attname: ``topic_id``); returns how many.

    PostgreSQL: one COPY ... FROM STDIN. Its client-side binding re-parses a many-row INSERT's
    text on every statement (a statement that long is never cached): 7 of `import_ntcireval`'s
    25 s, and the server parses its 5,500 parameters again (docs/benchmarks.md).
    SQLite: many rows a statement, as many as it takes parameters (999 // columns): half the
    time of one row a statement."""
    connection = connections[DEFAULT_DB_ALIAS]
    quote = connection.ops.quote_name
    fields = [model._meta.get_field(c) for c in columns]
    table, names = quote(model._meta.db_table), ", ".join(quote(f.column) for f in fields)
    rows = _prepared(model, columns, rows)
    if connection.vendor == "postgresql":
        return _copy(connection, f"COPY {table} ({names}) FROM STDIN", rows)
    head = f"INSERT INTO {table} ({names}) VALUES "
    group = f"({', '.join(['%s'] * len(columns))})"
    per_statement = max(1, min(BATCH, ROWS_PER_STATEMENT, connection.ops.bulk_batch_size(fields, range(BATCH))))
    many = head + ", ".join([group] * per_statement)
    count = 0
    rows = iter(rows)
    with connection.cursor() as cursor:
        while batch := list(islice(rows, BATCH - BATCH % per_statement)):
            whole = len(batch) - len(batch) % per_statement
            if whole:
                cursor.executemany(many, [list(chain.from_iterable(batch[i : i + per_statement]))
                                          for i in range(0, whole, per_statement)])
            if whole < len(batch):
                cursor.execute(head + ", ".join([group] * (len(batch) - whole)), list(chain.from_iterable(batch[whole:])))
            count += len(batch)
    return count


def _copy(connection, sql: str, rows: Iterable[Sequence]) -> int:
    """COPY the rows in (psycopg adapts each value as it would a parameter: Jsonb, bytea, ...)."""
    count = 0
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)
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
    return _execute_many(sql, _prepared(model, [*columns, model._meta.pk.attname], rows))


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


def _prepared(model: type[models.Model], columns: Sequence[str], rows: Iterable[Sequence]) -> Iterable[Sequence]:
    connection = connections[DEFAULT_DB_ALIAS]
    converters = [(i, field) for i, field in enumerate(model._meta.get_field(c) for c in columns)
                  if field.get_internal_type() in PREPARED_TYPES]
    if not converters:
        return rows
    json_values = {i: _json_value(connection, field.encoder) for i, field in converters if field.get_internal_type() == "JSONField"}
    shared: dict[int, tuple] = {}  # id(list) -> (the list, its value): a list given again is encoded once
    steps = [(i, field, json_values.get(i), {}) for i, field in converters]  # {}: other values, prepared once each

    def convert(row: Sequence) -> list:
        values = list(row)
        for i, field, json_value, prepared in steps:
            value = values[i]
            kind = value.__class__
            if kind is dict:  # JSON: unhashable, and rarely repeated
                values[i] = json_value(value)
            elif kind is list:  # JSON: a membership vector repeats as one object (interchange.ntcireval)
                held = shared.get(id(value))
                if held is None:
                    if len(shared) >= SHARED:  # many distinct lists: bounded memory
                        shared.clear()
                    held = shared[id(value)] = (value, json_value(value))
                values[i] = held[1]
            elif isinstance(value, (list, dict)):
                values[i] = json_value(value)
            else:  # an import stamps its rows with one time: prepared once
                if value not in prepared:
                    prepared[value] = field.get_db_prep_save(value, connection)
                values[i] = prepared[value]
        return values

    return map(convert, rows)


def _json_value(connection, encoder) -> Callable[[list | dict], object]:
    """What JSONField.get_db_prep_save ends in for a list or a dict (`adapt_json_value`), without
    its three layers of calls. Where that is `json.dumps` (SQLite), the text of json.dumps itself
    (the same C encoder, made once, not once a value): 126,000 history states in 0.17 s, not 0.29 s
    (docs/benchmarks.md); elsewhere (a jsonb on PostgreSQL) the backend's own adapter."""
    adapt = connection.ops.adapt_json_value
    make = json.encoder.c_make_encoder
    if type(connection.ops).adapt_json_value is not BaseDatabaseOperations.adapt_json_value or encoder is not None or make is None:
        return lambda value: adapt(value, encoder)
    # json.dumps(value) is JSONEncoder().encode(value): for a list or a dict, this encoder's
    # chunks joined (JSONEncoder.iterencode, one-shot, no indent).
    default = json.JSONEncoder()
    chunks = make({} if default.check_circular else None, default.default, json.encoder.encode_basestring_ascii,
                  default.indent, default.key_separator, default.item_separator, default.sort_keys, default.skipkeys,
                  default.allow_nan)
    return lambda value: "".join(chunks(value, 0))


def _execute_many(sql: str, rows: Iterable[Sequence]) -> int:
    count = 0
    rows = iter(rows)
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        while batch := list(islice(rows, BATCH)):
            cursor.executemany(sql, batch)
            count += len(batch)
    return count
