"""The scoring tests are pure (numpy + stdlib): they must run with `-p no:django`.

The project-wide autouse fixture in tests/conftest.py asks for pytest-django's `settings`
fixture; this stand-in satisfies it for the tests under tests/scoring (which never read Django
settings), so `pytest tests/scoring -p no:django` works with or without the plugin.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest


@pytest.fixture
def settings() -> SimpleNamespace:
    return SimpleNamespace()
