"""The database settings take effect: SQLite in WAL mode with a busy timeout and IMMEDIATE
transactions by default; DATABASE_URL switches to PostgreSQL; the upload limit comes from
GFRC_MAX_UPLOAD_MB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


def settings_in_a_fresh_process(**env) -> dict:
    """config.settings as a new process sees it with this environment."""
    code = (
        "import json, django; from django.conf import settings; django.setup(); "
        "db = settings.DATABASES['default']; "
        "print(json.dumps({'engine': db['ENGINE'], 'name': str(db['NAME']), 'host': db.get('HOST'), "
        "'port': db.get('PORT'), 'options': db.get('OPTIONS', {}), 'conn_max_age': db.get('CONN_MAX_AGE'), "
        "'upload': settings.DATA_UPLOAD_MAX_MEMORY_SIZE, 'file_upload': settings.FILE_UPLOAD_MAX_MEMORY_SIZE, "
        "'max_mb': settings.GFRC_MAX_UPLOAD_MB}))"
    )
    environment = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "GFRC_MAX_UPLOAD_MB"}}
    environment.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True,
                         check=True, timeout=60)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_sqlite_is_the_default_with_wal_busy_timeout_and_immediate_transactions():
    config = settings_in_a_fresh_process()
    assert config["engine"] == "django.db.backends.sqlite3"
    assert config["name"].endswith("db.sqlite3")
    assert config["options"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in config["options"]["init_command"]
    assert config["conn_max_age"] == 600  # kept per thread: the PRAGMAs run once per connection
    assert config["max_mb"] == 20 and config["upload"] == 20 * 1024 * 1024


def test_database_url_selects_postgresql():
    config = settings_in_a_fresh_process(DATABASE_URL="postgres://gfrc:secret@db.example:6543/gfrcdb")
    assert config["engine"] == "django.db.backends.postgresql"
    assert (config["name"], config["host"], config["port"]) == ("gfrcdb", "db.example", 6543)
    assert "init_command" not in config["options"]


def test_upload_limit_comes_from_the_environment():
    config = settings_in_a_fresh_process(GFRC_MAX_UPLOAD_MB="3")
    assert config["max_mb"] == 3
    assert config["upload"] == config["file_upload"] == 3 * 1024 * 1024


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite pragmas")
def test_sqlite_pragmas_take_effect_on_every_connection():
    with connection.cursor() as cursor:
        assert cursor.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert cursor.execute("PRAGMA busy_timeout").fetchone()[0] == 20000
        assert cursor.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert cursor.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert connection.transaction_mode == "IMMEDIATE"
    assert not connection.is_in_memory_db()  # tests use a file: WAL and threads behave as in production


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite locking")
def test_sqlite_immediate_transactions_take_the_write_lock_at_begin(tmp_path):
    """Two connections with the app's options: the second writer waits (busy timeout), then fails
    only when the timeout expires, never at once with 'database is locked'."""
    import sqlite3
    import time

    path = tmp_path / "lock.sqlite3"
    first = sqlite3.connect(path, isolation_level=None)
    first.execute("PRAGMA journal_mode=WAL")
    first.execute("CREATE TABLE t (x)")
    second = sqlite3.connect(path, isolation_level=None, timeout=0.5)
    first.execute("BEGIN IMMEDIATE")
    first.execute("INSERT INTO t VALUES (1)")
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        second.execute("BEGIN IMMEDIATE")
    assert time.monotonic() - started >= 0.4  # it waited for the busy timeout
    assert second.execute("SELECT count(*) FROM t").fetchone()[0] == 0  # WAL: readers are not blocked
    first.execute("COMMIT")
    second.execute("BEGIN IMMEDIATE")
    second.execute("INSERT INTO t VALUES (2)")
    second.execute("COMMIT")
    assert first.execute("SELECT count(*) FROM t").fetchone()[0] == 2
    first.close()
    second.close()


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL run only")
def test_postgresql_run_really_uses_postgresql():
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        assert cursor.fetchone()[0]
    assert os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
