import pytest

from annotator.interchange.exports import catalogue as exporting


@pytest.mark.parametrize("kind", ["jsonl", "scores-csv"])
def test_an_organiser_downloads_an_export_as_a_stream(api_as, campaign, kind):
    response = api_as("organiser").get(f"/api/campaigns/fw/exports/{kind}/")
    assert response.status_code == 200 and response.streaming
    content = b"".join(c if isinstance(c, bytes) else c.encode() for c in response.streaming_content)
    assert content == "".join(exporting.stream(campaign, kind)).encode()


def test_exports_are_for_organisers_only(api_as):
    assert api_as("annotator").get("/api/campaigns/fw/exports/jsonl/").status_code == 403
    assert api_as("other organiser").get("/api/campaigns/fw/exports/jsonl/").status_code == 404
    assert api_as("anonymous").get("/api/campaigns/fw/exports/jsonl/").status_code == 401


def test_an_unknown_export_is_not_found(api_as):
    assert api_as("organiser").get("/api/campaigns/fw/exports/pdf/").status_code == 404
