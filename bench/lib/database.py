"""A throwaway database for one benchmark run: DATABASE_URL when set (e.g. under
scripts/with-postgres.sh; emptied first), else a new SQLite file in a temporary directory.
Migrated, with the production settings on plain HTTP (DEBUG=0, a throwaway SECRET_KEY)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from bench.lib import PYTHON, ROOT


@contextmanager
def bench_database():
    """Point this process (and the servers it starts) at an empty, migrated database."""
    tmp = Path(tempfile.mkdtemp(prefix="gfrc-bench-"))
    try:
        if not os.environ.get("DATABASE_URL"):
            os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
            created_sqlite = True
        else:
            created_sqlite = False
            _reset_postgres()
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        os.environ["DEBUG"] = "0"
        os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-production-0123456789")
        os.environ["ALLOWED_HOSTS"] = "127.0.0.1,localhost"
        # Plain HTTP on loopback: the README's trial settings (production is HTTPS behind a proxy).
        os.environ.update(SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0", CSRF_COOKIE_SECURE="0")
        os.environ["STATIC_ROOT"] = str(tmp / "static")  # collected when a server first starts
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
        _django_setup()
        yield tmp
    finally:
        if created_sqlite:
            os.environ.pop("DATABASE_URL", None)
        shutil.rmtree(tmp, ignore_errors=True)


def _reset_postgres() -> None:
    """Empty the benchmark's PostgreSQL database (a throwaway one: scripts/with-postgres.sh)."""
    import psycopg

    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


def _django_setup() -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def database_label() -> str:
    from django.db import connection

    if connection.vendor == "sqlite":
        import sqlite3

        return f"SQLite {sqlite3.sqlite_version} (file, WAL)"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        return f"PostgreSQL {cursor.fetchone()[0].split()[0]} (loopback)"
