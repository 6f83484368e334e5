"""Who waits for SQLite's one writer, so that a long writer (an import's short transactions)
pauses for them only when someone waits, and not at all otherwise.

    if writers.someone_waits(connection): ...          # None: this database cannot tell
    waited = writers.while_someone_waits(connection, 0.1)   # seconds paused, until nobody waits

SQLite lets one connection write at a time. A save that finds the lock taken waits in SQLite's
busy handler, which sleeps 1 to 100 ms between tries, unseen by the connection holding the
lock: an import that went on at once after each commit could keep it from the save for good,
and one that paused after every batch (as long as the batch took) doubled its own time when
nobody waited (docs/benchmarks-history.md, "Imports linear in the file (issue 44)").

So every connection of this app says when it may wait: around a BEGIN (transactions start
IMMEDIATE: the write lock is taken there, or waited for) and around a write outside a
transaction, it holds a shared `flock` on a file beside the database, ``<database>-waiting``
(`connection_created` installs the wrapper that does it, on SQLite only). A writer that pauses
asks for that lock exclusively without waiting: granted, nobody waits; refused, someone does,
and it stays off the database until their shared locks are gone (each released as soon as SQLite
gave its connection the lock). flock locks an open file, not a process (as fcntl does), so the
threads of one process see each other too. The file is never written. A database that is no
file (in memory), a waiting file that cannot be created, or a system without flock:
`someone_waits` answers None, and the caller pauses as it did before.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.db.backends.signals import connection_created
from django.dispatch import receiver

try:
    import fcntl
except ImportError:  # not a POSIX system: nobody can tell who waits
    fcntl = None

__all__ = ["someone_waits", "while_someone_waits", "waiting"]

WRITES = ("INSERT", "UPDATE", "DELETE", "REPLAC")  # statements that take the write lock outside a transaction
POLL = 0.001  # seconds between two looks while someone waits


def _waiting_file(connection) -> str | None:
    """The file beside the connection's database (None: an in-memory database, or no flock)."""
    name = str(connection.settings_dict.get("NAME") or "")
    if fcntl is None or connection.vendor != "sqlite" or not name or name == ":memory:" or "mode=memory" in name:
        return None
    return f"{name}-waiting"


@contextmanager
def waiting(connection) -> Iterator[None]:
    """Inside, this connection says it may wait for the writer's lock (a shared flock on the
    database's waiting file; nothing where none can be had)."""
    fd = _open(connection)
    if fd is None:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # the lock goes with it


def _open(connection) -> int | None:
    """The waiting file, opened (created when missing); None where there is none or it cannot
    be had (a folder this process may not write in: its writes are not held up for that)."""
    path = _waiting_file(connection)
    if path is None:
        return None
    try:
        return os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
    except OSError:
        return None


def _announced(execute, sql, params, many, context):
    """The statement, run while this connection says it may wait for the writer's lock (when
    it may: a BEGIN, or a write outside a transaction)."""
    connection = context["connection"]
    if not (sql.startswith("BEGIN") or (not connection.in_atomic_block and sql.lstrip()[:6].upper() in WRITES)):
        return execute(sql, params, many, context)
    with waiting(connection):
        return execute(sql, params, many, context)


@receiver(connection_created)
def _install(sender, connection, **kwargs) -> None:
    if connection.vendor == "sqlite" and _announced not in connection.execute_wrappers:
        connection.execute_wrappers.insert(0, _announced)  # outermost: whatever a caller adds runs inside it


def someone_waits(connection) -> bool | None:
    """Whether a connection is waiting for the writer's lock now, or is about to; None when this
    database cannot tell."""
    fd = _open(connection)
    if fd is None:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def while_someone_waits(connection, longest: float) -> float | None:
    """Stay off the database while someone waits for the writer's lock, at most `longest`
    seconds: nothing at all when nobody does. Returns the seconds paused (None: this database
    cannot tell, and nothing was done)."""
    began = time.perf_counter()
    someone = someone_waits(connection)
    if someone is None:
        return None
    while someone and time.perf_counter() - began < longest:
        time.sleep(POLL)
        someone = someone_waits(connection)
    return time.perf_counter() - began
