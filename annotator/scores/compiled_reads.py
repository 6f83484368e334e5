"""Reads that every save and every page of the workspace runs, compiled to SQL once.

A conversation is scored from three `values_list` reads (its turns, one annotator's nuggets with
entity and grade, their memberships), on every save, page and panel. Django compiles a queryset
into SQL each time it runs, and for these the compiling costs as much as the database's own work
(the nugget read: 17 columns, two joins and an ordering; docs/benchmarks-history.md, "Saves:
faster than before the stored figures, measured in pairs"). The SQL depends on the query's
shape, never on the ids it is asked about, so a `CompiledRows` compiles its query once per
database connection (the SQL and the value converters are the backend's) and afterwards only
binds the new ids.

Not derived data: what is kept is the SQL of a query the code wrote, like a compiled template.
The rows are read from the database each time.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet

# Ids no row has: where one of them stands in the compiled parameters, a caller's id goes.
_STAND_INS = tuple(-(2**62) + k for k in range(8))


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]  # the compiled parameters, stand-ins included
    argument_at: tuple[int | None, ...]  # per parameter: which argument replaces it (None: kept)
    converters: tuple[tuple[int, tuple[Callable, ...], Any], ...]  # (column, from-database functions, expression)


class CompiledRows:
    """The rows of `build(*ids)` (a `values_list` queryset of scalar ids) as tuples, its SQL
    compiled on the first call on a connection and reused with other ids after."""

    def __init__(self, build: Callable[..., QuerySet]):
        self._build = build
        self._by_connection: weakref.WeakKeyDictionary[Any, _Compiled] = weakref.WeakKeyDictionary()

    def rows(self, *ids: int) -> list[tuple]:
        wrapper = connections[DEFAULT_DB_ALIAS]  # this thread's: its backend compiled the SQL
        compiled = self._by_connection.get(wrapper)
        if compiled is None:
            compiled = self._by_connection[wrapper] = self._compile(wrapper, len(ids))
        params = [p if i is None else ids[i] for p, i in zip(compiled.params, compiled.argument_at)]
        with wrapper.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        if not compiled.converters:
            return rows  # the drivers' rows are tuples already
        # as the compiler's apply_converters, which would need the compiler kept, and with it the
        # connection it holds: what is compiled must not keep a finished thread's connection alive
        converted = []
        for row in rows:
            row = list(row)
            for column, functions, expression in compiled.converters:
                value = row[column]
                for function in functions:
                    value = function(value, expression, wrapper)
                row[column] = value
            converted.append(tuple(row))
        return converted

    def _compile(self, wrapper, arguments: int) -> _Compiled:
        stand_ins = _STAND_INS[:arguments]
        compiler = self._build(*stand_ins).query.get_compiler(connection=wrapper)
        sql, params = compiler.as_sql()
        argument_at = tuple(stand_ins.index(p) if isinstance(p, int) and p in stand_ins else None for p in params)
        if sorted({i for i in argument_at if i is not None}) != list(range(arguments)):
            raise ValueError(f"every id must be a parameter of the compiled query: {sql}")
        fields = [selected[0] for selected in compiler.select[: compiler.col_count]]
        converters = tuple((column, tuple(functions), expression)
                           for column, (functions, expression) in compiler.get_converters(fields).items())
        return _Compiled(sql, tuple(params), argument_at, converters)
