def test_an_anonymous_client_gets_401_with_a_token_challenge(api_as):
    response = api_as("anonymous").get("/api/campaigns/")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"


def test_an_annotator_sees_the_campaigns_they_annotate_in(api_as):
    response = api_as("annotator").get("/api/campaigns/")
    assert [c["slug"] for c in response.json()["results"]] == ["fw"]


def test_another_organiser_sees_only_their_own_campaign(api_as):
    response = api_as("other organiser").get("/api/campaigns/")
    assert [c["slug"] for c in response.json()["results"]] == ["other"]
    assert api_as("other organiser").get("/api/campaigns/fw/").status_code == 404


def test_a_campaign_carries_its_settings_grades_and_attribute_sets(api_as):
    data = api_as("organiser").get("/api/campaigns/fw/").json()
    assert data["patience"] == 1250 and data["alpha"] == 0.5 and data["version"] == 1
    assert [g["label"] for g in data["grades"]] == ["L0", "L1", "L2"]
    assert {a["name"] for a in data["attribute_sets"]} == {"RATINGS", "ORIGIN"}


def test_topics_and_runs_of_a_campaign_are_listed(api_as):
    client = api_as("annotator")
    assert [t["code"] for t in client.get("/api/campaigns/fw/topics/").json()] == ["M001", "M002"]
    assert [r["name"] for r in client.get("/api/campaigns/fw/runs/").json()] == ["bard-trial1", "bing-trial1", "chatgpt-trial1"]
    assert api_as("other organiser").get("/api/campaigns/fw/topics/").status_code == 404
