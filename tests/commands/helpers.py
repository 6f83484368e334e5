"""Shared by the command tests: the shipped files, running commands, counting rows."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

ROOT = Path(__file__).resolve().parents[2]
CAMPAIGN_FILE = ROOT / "fixtures" / "fairweb-campaign.json"
EXAMPLE = ROOT / "fixtures" / "demo" / "M002-bing-trial1.txt"
BARD_FIGURE = ROOT / "tests" / "interchange" / "formats" / "data" / "M002-bard-trial1-figure5.txt"


def run(*args, **options) -> tuple[str, str]:
    """Run a management command; (stdout, stderr)."""
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def refused(*args, **options) -> tuple[str, str]:
    """Run a command that must fail with CommandError; (message, stderr)."""
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as info:
        call_command(*args, stdout=out, stderr=err, **options)
    return str(info.value), err.getvalue()


def row_counts() -> dict[str, int]:
    """Rows of every model of the app, and users: the database's state in numbers."""
    counts = {m.__name__: m.objects.count() for m in apps.get_app_config("annotator").get_models()}
    counts["User"] = get_user_model().objects.count()
    return counts


def load_fairweb() -> None:
    run("load_campaign", str(CAMPAIGN_FILE))


def write(tmp_path: Path, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return str(path)
