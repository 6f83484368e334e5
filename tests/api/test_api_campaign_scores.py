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
