import io
import json
import zipfile

import pytest
from django.urls import reverse

from annotator.interchange.exports import catalogue as exporting
from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign, kind):
    return reverse("console:download", kwargs={"slug": campaign.slug, "kind": kind})


def body(response) -> bytes:
    return b"".join(c if isinstance(c, bytes) else c.encode() for c in response.streaming_content)


def test_only_the_campaigns_organiser_downloads_exports(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign, "jsonl"))


@pytest.mark.parametrize("kind", ["paper", "jsonl", "nuggets-tsv", "scores-csv", "nuggets-csv", "turns-csv"])
def test_each_text_export_streams_the_exporters_chunks(organiser, campaign, kind):
    response = organiser.get(url(campaign, kind))
    assert response.status_code == 200 and response.streaming
    assert f'filename="fw-{kind}.' in response["Content-Disposition"]
    expected = "".join(exporting.stream(campaign, kind)).encode()
    assert body(response) == expected and expected


def test_the_scores_json_export_is_valid_json(organiser, campaign):
    data = json.loads(body(organiser.get(url(campaign, "scores-json"))))
    assert data


def test_the_qrels_export_is_a_zip(organiser, campaign):
    response = organiser.get(url(campaign, "qrels"))
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(body(response)))
    assert any(name.endswith(".qrels") for name in archive.namelist())


def test_an_unknown_export_is_not_found(organiser, campaign):
    assert organiser.get(url(campaign, "pdf")).status_code == 404
