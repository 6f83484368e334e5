from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

# Property tests check results, not time: Hypothesis's default 200 ms deadline per example fails
# them at random on a loaded machine (CI shares two cores with the browser and PostgreSQL runs).
# Speed is measured by the benchmarks in bench/, never by a test.
hypothesis_settings.register_profile("gfrc", deadline=None)
hypothesis_settings.load_profile("gfrc")


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_login_throttling(settings):
    """django-axes needs the request in every authenticate() call and counts failures across
    tests; the throttling tests (tests/security/test_login_throttling.py) turn it back on."""
    settings.AXES_ENABLED = False


def pytest_sessionfinish(session, exitstatus):
    """The test database's waiting file (annotator.writers), beside it as its -wal and -shm
    files are, goes with it: none is left in the temporary folder after a run."""
    from django.conf import settings

    database = settings.DATABASES["default"] if settings.configured else {}
    name = database.get("TEST", {}).get("NAME")
    if database.get("ENGINE") == "django.db.backends.sqlite3" and name:
        Path(f"{name}-waiting").unlink(missing_ok=True)
