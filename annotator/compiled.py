"""ORM queries compiled to SQL once per database, then run with new values.

Building and compiling a queryset costs a few hundred microseconds of Python each time,
more than SQLite takes to answer it. The workspace asks the same few questions on every
request (may this user open this conversation, its turns, this annotator's nuggets), so
those queries are written with the ORM (table and column names stay the models', joins and
quoting stay Django's) and compiled once: each parameter is given a sentinel value, the
compiled SQL is kept with the order in which the sentinels appear in its parameters, and
later calls only execute it.

`rows()` gives the rows as the database driver returns them (no field converters): for
columns whose raw values are already what the caller needs (integers, text, floats).
`values()` applies the fields' converters (dates, JSON, booleans), and `objects()` builds
model instances with their select_related objects, the way a queryset's iteration does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from threading import Lock

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators
from django.db.models.sql.compiler import SQLCompiler

_SENTINEL_BASE = -7_300_000_000_000


@dataclass(frozen=True)
class _Compiled:
    sql: str
    order: tuple[str, ...]  # argument names, in the order the SQL's parameters take them
    compiler: SQLCompiler  # after as_sql(): its select and klass_info describe the columns
    converters: dict


class CompiledQuery:
    """`build(**sentinels)` gives the queryset; `rows(**values)` runs it with the values."""

    def __init__(self, build: Callable[..., QuerySet], *names: str, using: str = "default"):
        self.build = build
        self.names = names
        self.using = using
        self._compiled: dict[str, _Compiled] = {}
        self._lock = Lock()

    def _compile(self) -> _Compiled:
        vendor = connections[self.using].vendor
        compiled = self._compiled.get(vendor)
        if compiled is None:
            with self._lock:
                sentinels = {name: _SENTINEL_BASE - i for i, name in enumerate(self.names)}
                by_value = {value: name for name, value in sentinels.items()}
                compiler = self.build(**sentinels).query.get_compiler(using=self.using)
                sql, params = compiler.as_sql()
                unknown = [p for p in params if p not in by_value]
                if unknown:
                    raise ValueError(f"query has parameters that are not arguments: {unknown!r}")
                converters = compiler.get_converters([column for column, _sql, _alias in compiler.select])
                compiled = self._compiled[vendor] = _Compiled(sql, tuple(by_value[p] for p in params), compiler, converters)
        return compiled

    def _execute(self, compiled: _Compiled, values: dict) -> list[tuple]:
        with connections[self.using].cursor() as cursor:
            cursor.execute(compiled.sql, [values[name] for name in compiled.order])
            return cursor.fetchall()

    def rows(self, **values) -> list[tuple]:
        return self._execute(self._compile(), values)

    def values(self, **values) -> list[list]:
        compiled = self._compile()
        rows = self._execute(compiled, values)
        if not compiled.converters:
            return [list(row) for row in rows]
        return list(compiled.compiler.apply_converters(rows, compiled.converters))

    def objects(self, **values) -> list[Model]:
        compiled = self._compile()
        compiler = compiled.compiler
        klass_info, select = compiler.klass_info, compiler.select
        first, last = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        init_list = [column[0].target.attname for column in select[first:last]]
        populators = get_related_populators(klass_info, select, self.using)
        result = []
        for row in self.values(**values):
            obj = klass_info["model"].from_db(self.using, init_list, row[first:last])
            for populator in populators:
                populator.populate(row, obj)
            result.append(obj)
        return result

    def first(self, **values) -> Model | None:
        objects = self.objects(**values)
        return objects[0] if objects else None
