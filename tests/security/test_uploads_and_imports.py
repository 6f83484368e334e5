"""Uploads and imports are all or nothing: a file with an error in its last conversation
imports nothing; oversized, non-UTF-8 and binary files get a clear error and change nothing."""

from __future__ import annotations

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotator.models import Campaign
from tests.security.conftest import judgment_counts

pytestmark = pytest.mark.django_db


def line(topic: str, run: str, *, broken: bool = False) -> str:
    conversation = {
        "topic": topic,
        "run": run,
        "turns": [
            {"role": "user", "text": "Recommend time travel movies"},
            {"role": "system", "text": "Primer (2004): https://www.imdb.com/title/tt0390384/ is good.", "label": "o"},
        ],
        "nuggets": [{"turn": 2, "start": 0, "end": 10_000 if broken else 2, "grade": "L2"}],
    }
    return json.dumps(conversation) + "\n"


def jsonl(count: int, broken_last: bool) -> bytes:
    return "".join(line(f"M{100 + i}", "imported-run", broken=broken_last and i == count - 1)
                   for i in range(count)).encode()


def test_the_command_imports_nothing_when_the_last_conversation_is_broken(site, tmp_path):
    path = tmp_path / "three.jsonl"
    path.write_bytes(jsonl(3, broken_last=True))
    before = judgment_counts()
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_conversations", str(path), campaign=site.campaign.slug,
                     stdout=io.StringIO(), stderr=io.StringIO())
    assert judgment_counts() == before
    # The same file without the error goes in whole.
    path.write_bytes(jsonl(3, broken_last=False))
    call_command("import_conversations", str(path), campaign=site.campaign.slug, stdout=io.StringIO(),
                 stderr=io.StringIO())
    assert judgment_counts()["Conversation"] == before["Conversation"] + 3


def upload(client, site, name: str, content: bytes):
    client.force_login(site.organiser)
    return client.post(reverse("console:upload", args=[site.campaign.slug]),
                       {"files": SimpleUploadedFile(name, content, content_type="application/octet-stream")})


def test_an_upload_with_a_broken_last_conversation_imports_nothing(client, site):
    before = judgment_counts()
    response = upload(client, site, "three.jsonl", jsonl(3, broken_last=True))
    assert response.status_code == 400
    assert "outside the turn" in response.content.decode()
    assert judgment_counts() == before


@pytest.mark.parametrize("name, content", [
    ("latin1.jsonl", line("M201", "r").encode().replace(b"Recommend", b"Recommend caf\xe9")),
    ("latin1.txt", b"U1: caf\xe9 movies\nS1: Primer\n"),
    ("binary.jsonl", bytes(range(256)) * 8),
    ("binary.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200)),
    ("empty.jsonl", b""),
])
def test_non_utf8_binary_and_empty_files_are_refused_clearly(client, site, name, content):
    before = judgment_counts()
    client.raise_request_exception = False
    response = upload(client, site, name, content)
    body = response.content.decode(errors="replace")
    if response.status_code == 200:  # the form itself refused it (Django: "The submitted file is empty.")
        assert "errorlist" in body or "error" in body.lower()
    else:
        assert response.status_code in (400, 413, 422), response.status_code
    assert judgment_counts() == before


def test_oversized_uploads_are_refused(client, site, settings):
    """GFRC_MAX_UPLOAD_MB is the limit for conversation files (1 MB here; 20 MB by default)."""
    settings.GFRC_MAX_UPLOAD_MB = 1
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
    content = jsonl(1, broken_last=False) * 1  # a valid conversation...
    content += b" " * (1024 * 1024 + 10)  # ...padded past the limit
    before = judgment_counts()
    client.raise_request_exception = False
    response = upload(client, site, "big.jsonl", content)
    assert response.status_code in (400, 413), response.status_code
    body = response.content.decode(errors="replace").lower()
    assert "mb" in body or "too large" in body or "larger" in body
    assert judgment_counts() == before


def test_a_refused_settings_change_changes_nothing(client, site):
    client.force_login(site.organiser)
    campaign = Campaign.objects.get(pk=site.campaign.pk)
    before = (campaign.alpha, campaign.patience, campaign.method, campaign.version)
    client.raise_request_exception = False
    for bad in ({"alpha": "1.5", "patience": "1250"}, {"alpha": "nan", "patience": "1250"},
                {"alpha": "0.5", "patience": "-3"}, {"alpha": "-0.1", "patience": "0"}):
        response = client.post(reverse("console:settings", args=[site.campaign.slug]),
                               {"method": "independent", "empty_turns": "ignore", "turn_weight": "one",
                                "duplicates_count_once": "on", "name": campaign.name, **bad})
        assert response.status_code in (200, 400, 422), response.status_code
        campaign.refresh_from_db()
        assert (campaign.alpha, campaign.patience, campaign.method, campaign.version) == before, bad
