import pytest

from annotator.interchange.exports import catalogue as exporting


def test_an_organiser_gets_every_conversations_scores_and_run_means_with_intervals(api_as):
    data = api_as("organiser").get("/api/campaigns/fw/scores/").json()
    assert len(data["conversations"]) == 6
    row = data["conversations"][0]
    assert {"topic", "run", "R", "GF", "GF_ORIGIN", "GF_RATINGS", "GFRC"} <= set(row)
    assert [r["run"] for r in data["runs"]] == ["bard-trial1", "bing-trial1", "chatgpt-trial1"]
    assert data["runs"][0]["GF_ci_low"] <= data["runs"][0]["GF"] <= data["runs"][0]["GF_ci_high"]


def test_scores_follow_the_settings_at_once(api_as):
    client = api_as("organiser")
    before = client.get("/api/campaigns/fw/scores/").json()["runs"][0]["R"]
    client.patch("/api/campaigns/fw/", {"version": 1, "patience": 200}, format="json")
    assert client.get("/api/campaigns/fw/scores/").json()["runs"][0]["R"] > before


def test_campaign_scores_are_for_organisers_only(api_as):
    assert api_as("annotator").get("/api/campaigns/fw/scores/").status_code == 403
    assert api_as("other organiser").get("/api/campaigns/fw/scores/").status_code == 404
    assert api_as("anonymous").get("/api/campaigns/fw/scores/").status_code == 401


@pytest.mark.parametrize("detail, kind", [("nuggets", "nuggets-csv"), ("turns", "turns-csv")])
def test_an_organiser_streams_how_the_scores_were_built_as_the_papers_tables(api_as, campaign, detail, kind):
    response = api_as("organiser").get(f"/api/campaigns/fw/scores/?detail={detail}")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("text/csv")
    content = b"".join(c if isinstance(c, bytes) else c.encode() for c in response.streaming_content).decode()
    assert content == "".join(exporting.stream(campaign, kind))
    assert content.startswith("topic,run,annotator,turn,") and content.count("\n") > 1


def test_an_unknown_score_detail_is_refused(api_as):
    response = api_as("organiser").get("/api/campaigns/fw/scores/?detail=pdf")
    assert response.status_code == 400


def test_score_details_are_for_organisers_only(api_as):
    assert api_as("annotator").get("/api/campaigns/fw/scores/?detail=nuggets").status_code == 403
