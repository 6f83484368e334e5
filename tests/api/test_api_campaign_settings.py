from annotator.models import Campaign


def test_an_organiser_changes_L_with_the_version_they_saw(api_as):
    response = api_as("organiser").patch("/api/campaigns/fw/", {"version": 1, "patience": 400}, format="json")
    assert response.status_code == 200
    assert response.json()["patience"] == 400 and response.json()["version"] == 2
    assert Campaign.objects.get(slug="fw").patience == 400


def test_a_stale_version_gives_409_with_the_current_settings(api_as):
    client = api_as("organiser")
    client.patch("/api/campaigns/fw/", {"version": 1, "alpha": 0.3}, format="json")
    response = client.patch("/api/campaigns/fw/", {"version": 1, "patience": 10}, format="json")
    assert response.status_code == 409
    assert response.json()["current"]["alpha"] == 0.3 and response.json()["current"]["patience"] == 1250


def test_settings_are_validated_by_the_consoles_form(api_as):
    response = api_as("organiser").patch("/api/campaigns/fw/", {"version": 1, "alpha": 2}, format="json")
    assert response.status_code == 400 and "alpha" in response.json()


def test_other_settings_are_kept_when_one_changes(api_as):
    api_as("organiser").patch("/api/campaigns/fw/", {"version": 1, "method": "cumulative"}, format="json")
    campaign = Campaign.objects.get(slug="fw")
    assert campaign.method == "cumulative" and campaign.duplicates_count_once is True and campaign.patience == 1250


def test_an_organiser_makes_imports_refuse_relevant_nuggets_without_memberships(api_as):
    response = api_as("organiser").patch("/api/campaigns/fw/", {"version": 1, "missing_membership": "refuse"}, format="json")
    assert response.status_code == 200 and response.json()["missing_membership"] == "refuse"
    assert Campaign.objects.get(slug="fw").missing_membership == "refuse"


def test_an_annotator_may_not_change_settings(api_as):
    response = api_as("annotator").patch("/api/campaigns/fw/", {"version": 1, "patience": 5}, format="json")
    assert response.status_code == 403


def test_another_organiser_cannot_even_see_the_campaign(api_as):
    assert api_as("other organiser").patch("/api/campaigns/fw/", {"version": 1, "patience": 5}, format="json").status_code == 404
    assert Campaign.objects.get(slug="fw").patience == 1250
