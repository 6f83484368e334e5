"""A new campaign in the browser (/console/new/): for superusers and the accounts an
administrator allowed (annotator.add_campaign); from a shipped template, from one of the
user's campaigns, or from an uploaded campaign file checked by load_campaign's rules with its
messages; the creator organises it; an existing slug changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotator.interchange.imports.campaign_file import describe_campaign, validate_campaign
from annotator.models import AttributeSet, Campaign, Topic
from tests.factories import make_user

pytestmark = pytest.mark.django_db

URL = reverse("console:new_campaign")
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture
def maker(db) -> Client:
    """An account an administrator allowed to create campaigns (no campaign yet)."""
    user = make_user("maker")
    user.user_permissions.add(Permission.objects.get(codename="add_campaign", content_type__app_label="annotator"))
    client = Client()
    client.force_login(user)
    return client


def create(client, **data):
    return client.post(URL, {"name": "FairWeb-2", "slug": "fairweb2", **data})


def test_only_superusers_and_the_accounts_allowed_make_campaigns(client, maker):
    assert "/accounts/login/" in client.get(URL)["Location"]
    client.force_login(make_user("plain"))
    assert client.get(URL).status_code == 403 and create(client, template="fairweb").status_code == 403
    assert client.get(reverse("console:index")).status_code == 403
    assert maker.get(URL).status_code == 200
    assert 'href="/console/new/"' in maker.get(reverse("console:index")).content.decode()  # the console, no campaign yet
    admin = Client()
    admin.force_login(make_user("root", is_superuser=True, is_staff=True))
    assert admin.get(URL).status_code == 200
    assert not Campaign.objects.filter(slug="fairweb2").exists()


def test_from_the_fairweb_template_the_settings_types_and_sets_without_topics_and_the_maker_organises(maker):
    response = create(maker, template="fairweb")
    assert response.status_code == 302 and response["Location"] == reverse("console:topics", args=["fairweb2"])
    campaign = Campaign.objects.get(slug="fairweb2")
    assert campaign.name == "FairWeb-2" and list(campaign.organisers.values_list("username", flat=True)) == ["maker"]
    shipped = json.loads((FIXTURES / "fairweb-campaign.json").read_text())
    assert sorted(t.code for t in campaign.topic_types.all()) == sorted(t["code"] for t in shipped["topic_types"])
    assert AttributeSet.objects.filter(topic_type__campaign=campaign).count() == sum(
        len(t["attribute_sets"]) for t in shipped["topic_types"])
    assert not Topic.objects.filter(campaign=campaign).exists()


def test_from_the_pilot_template_its_ranked_list_gains_and_cutoff(maker):
    create(maker, template="pilot")
    campaign = Campaign.objects.get(slug="fairweb2")
    assert dict(campaign.grades.values_list("label", "ranked_list_gain")) == {"L0": 0, "L1": 1, "L2": 3}


def test_from_one_of_the_makers_own_campaigns_never_another_organisers(maker):
    create(maker, template="fairweb")
    mine = Campaign.objects.get(slug="fairweb2")
    mine.patience = 777
    mine.save()
    theirs = Campaign.objects.create(slug="theirs", name="theirs")
    form = maker.get(URL).context["form"]
    offered = {value for value, _label in form.fields["template"].choices}
    assert "campaign:fairweb2" in offered and "campaign:theirs" not in offered
    assert create(maker, slug="copy", template="campaign:theirs").status_code == 400
    assert create(maker, slug="copy", template="campaign:fairweb2").status_code == 302
    copy = Campaign.objects.get(slug="copy")
    assert copy.patience == 777 and describe_campaign(copy)["topic_types"] == describe_campaign(mine)["topic_types"]
    assert theirs.organisers.count() == 0


def test_a_campaign_file_is_checked_by_load_campaigns_rules_with_the_same_messages(maker):
    data = json.loads((FIXTURES / "fairweb-campaign.json").read_text())
    data["settings"]["alpha"] = 2
    data["topic_types"][0]["attribute_sets"][0]["groups"] = []
    upload = SimpleUploadedFile("mine.json", json.dumps(data).encode())
    response = maker.post(URL, {"name": "x", "slug": "fromfile", "campaign_file": upload})
    assert response.status_code == 400
    _spec, problems = validate_campaign({**data, "slug": "fromfile", "name": "x"}, "mine.json")
    assert response.context["problems"] == [str(p) for p in problems] and len(problems) >= 2
    assert "mine.json: settings.alpha: must be between 0 and 1" in response.context["problems"]
    assert not Campaign.objects.filter(slug="fromfile").exists()


def test_a_good_campaign_file_makes_the_campaign_with_its_topics(maker):
    data = json.loads((FIXTURES / "fairweb1-pilot-campaign.json").read_text())
    upload = SimpleUploadedFile("pilot.json", json.dumps(data).encode())
    assert maker.post(URL, {"name": "Pilot copy", "slug": "pilotcopy", "campaign_file": upload}).status_code == 302
    campaign = Campaign.objects.get(slug="pilotcopy")
    assert campaign.topics.count() == len(data["topics"]) and campaign.organisers.get().username == "maker"


def test_a_file_that_is_not_json_or_names_organisers_creates_nothing(maker):
    response = maker.post(URL, {"name": "x", "slug": "bad", "campaign_file": SimpleUploadedFile("c.json", b"{not json")})
    assert response.status_code == 400 and "c.json: line 1 column 2: invalid JSON" in response.context["problems"][0]
    data = {**json.loads((FIXTURES / "fairweb-campaign.json").read_text()), "organisers": ["maker"]}
    response = maker.post(URL, {"name": "x", "slug": "bad", "campaign_file": SimpleUploadedFile("c.json", json.dumps(data).encode())})
    assert response.status_code == 400 and "organisers" in response.context["problems"][0]
    assert not Campaign.objects.filter(slug="bad").exists()


def test_an_existing_slug_or_a_console_page_is_refused_and_nothing_changes(maker):
    create(maker, template="fairweb")
    before = Campaign.objects.get(slug="fairweb2")
    response = maker.post(URL, {"name": "Another", "slug": "fairweb2", "template": "pilot"})
    assert response.status_code == 400 and "exists already" in str(response.context["form"].errors["slug"])
    assert Campaign.objects.get(slug="fairweb2").name == before.name == "FairWeb-2"
    response = maker.post(URL, {"name": "x", "slug": "new", "template": "pilot"})
    assert response.status_code == 400 and "names a console page" in str(response.context["form"].errors["slug"])


def test_one_of_template_or_file(maker):
    response = maker.post(URL, {"name": "x", "slug": "x"})
    assert response.status_code == 400 and "one of the two" in str(response.context["form"].errors)
