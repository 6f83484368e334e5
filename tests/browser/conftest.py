"""Browser tests: Python Playwright driving Debian's chromium against Django's live server.

Run on their own (`make test-browser`): Playwright's sync API runs an event loop in the test
thread, which Django refuses unless DJANGO_ALLOW_ASYNC_UNSAFE is set.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-results"


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("Debian's chromium is needed for the browser tests (scripts/ensure-chromium.sh)")
    return {
        **browser_type_launch_args,
        "executable_path": chromium,
        # This machine's network is closed: without these, chromium keeps trying Google's hosts.
        "args": [
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
        ],
    }


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Screenshot of the page on any failing browser test, in test-results/."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        page = item.funcargs.get("page")
        if page is not None:
            ARTIFACTS.mkdir(exist_ok=True)
            try:
                page.screenshot(path=str(ARTIFACTS / f"{item.name}.png"), full_page=True)
            except Exception:  # the page may be gone; the failure itself is what matters
                pass


@pytest.fixture
def login(page, live_server):
    """login(username, password) through the real login form."""

    def _login(username: str, password: str) -> None:
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_load_state("networkidle")

    return _login
