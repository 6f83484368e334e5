"""The console's automatic-judges page: a judge against the gold, its CSV downloads, and the
marking of judge accounts. In the demo, bob doubles ann on four conversations over three runs."""

import csv
import io

import pytest
from django.urls import reverse

from annotator.models import AnnotatorProfile
from tests.console.conftest import assert_only_the_organiser_gets_in


def page(campaign):
    return reverse("console:judges", kwargs={"slug": campaign.slug})


def download(campaign, level="campaign"):
    return reverse("console:judges_csv", kwargs={"slug": campaign.slug, "level": level})


@pytest.fixture
def judge(demo):
    bob = demo[2][1]
    AnnotatorProfile.mark(bob, description="baseline: <b>gpt</b> v1")
    return bob


def test_only_the_campaigns_organiser_sees_the_page_and_the_csv(client_as, campaign, judge):
    assert_only_the_organiser_gets_in(client_as, page(campaign))
    assert_only_the_organiser_gets_in(client_as, download(campaign), data={"judge": judge.pk, "gold": "adjudicated"})
    assert_only_the_organiser_gets_in(client_as, page(campaign), method="post",
                                      data={"annotator": judge.pk, "is_automatic": "on"})


def test_the_agreement_page_links_to_the_judges_page(organiser, campaign):
    response = organiser.get(reverse("console:agreement", kwargs={"slug": campaign.slug}))
    assert page(campaign) in response.content.decode()


def test_the_page_compares_the_first_judge_with_the_adjudicated_gold_and_shows_its_description_inert(
    organiser, campaign, judge
):
    response = organiser.get(page(campaign))
    body = response.content.decode()
    assert response.status_code == 200
    assert "bob against the adjudicated gold" in body
    assert "4 conversations compared" in body
    assert "&lt;b&gt;gpt&lt;/b&gt;" in body and "<b>gpt</b>" not in body
    assert "Kendall" in body and "<circle" in body
    assert f"judge={judge.pk}&amp;gold=adjudicated" in body


def test_a_human_gold_can_be_chosen(organiser, campaign, judge, demo):
    ann = demo[2][0]
    response = organiser.get(page(campaign), {"judge": judge.pk, "gold": ann.pk})
    assert "bob against the gold of ann" in response.content.decode()


def test_only_automatic_judges_can_be_compared_and_only_humans_be_gold(organiser, campaign, judge, demo):
    ann = demo[2][0]
    assert organiser.get(page(campaign), {"judge": ann.pk, "gold": "adjudicated"}).status_code == 400
    assert organiser.get(page(campaign), {"judge": judge.pk, "gold": judge.pk}).status_code == 400
    assert organiser.get(download(campaign), {"judge": ann.pk, "gold": "adjudicated"}).status_code == 404


def test_without_an_automatic_judge_the_page_says_how_to_get_one(organiser, campaign):
    body = organiser.get(page(campaign)).content.decode()
    assert "No annotator of this campaign is marked as an automatic judge yet" in body


def test_the_campaign_csv_has_one_row_per_measure_with_the_ranking_columns(organiser, campaign, judge):
    response = organiser.get(download(campaign), {"judge": judge.pk, "gold": "adjudicated"})
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="fw-bob-vs-adjudicated-campaign.csv"' in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0]) == ["measure", "runs", "kendall_tau_b", "tau_ap", "flips", "mean_abs_error"]
    assert [r["measure"] for r in rows] == ["R", "GF_ORIGIN", "GF_RATINGS", "GF", "GFRC"]
    assert {r["runs"] for r in rows} == {"3"}


def test_the_conversation_csv_has_every_compared_conversation_with_its_errors(organiser, campaign, judge):
    response = organiser.get(download(campaign, "conversations"), {"judge": judge.pk, "gold": "adjudicated"})
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 4
    row = rows[0]
    assert float(row["error_GFRC"]) == pytest.approx(float(row["judge_GFRC"]) - float(row["gold_GFRC"]), abs=2e-6)


def test_an_organiser_marks_an_account_as_an_automatic_judge_and_back(organiser, campaign, demo):
    bob = demo[2][1]
    response = organiser.post(page(campaign), {"annotator": bob.pk, "is_automatic": "on", "description": "GPT-4o, prompt v2"})
    assert response.status_code == 302
    profile = AnnotatorProfile.objects.get(user=bob)
    assert profile.is_automatic and profile.description == "GPT-4o, prompt v2"
    organiser.post(page(campaign), {"annotator": bob.pk, "description": "a person after all"})
    assert not AnnotatorProfile.objects.get(user=bob).is_automatic


def test_only_the_campaigns_annotators_can_be_marked(organiser, campaign):
    from tests.factories import make_user

    stranger = make_user("stranger")
    response = organiser.post(page(campaign), {"annotator": stranger.pk, "is_automatic": "on"})
    assert response.status_code == 400
    assert not AnnotatorProfile.objects.filter(user=stranger).exists()


def test_a_judge_named_in_any_script_downloads_under_its_name(organiser, campaign, judge):
    judge.username = "jürgen-判定"
    judge.save()
    response = organiser.get(download(campaign), {"judge": judge.pk, "gold": "adjudicated"})
    assert response.status_code == 200
    # RFC 6266's filename*: the name survives in any browser, and the header stays ASCII
    assert response["Content-Disposition"] == (
        "attachment; filename*=utf-8''fw-j%C3%BCrgen-%E5%88%A4%E5%AE%9A-vs-adjudicated-campaign.csv")


def test_marking_an_account_again_without_a_description_keeps_the_one_it_had(organiser, campaign, demo):
    bob = demo[2][1]
    organiser.post(page(campaign), {"annotator": bob.pk, "is_automatic": "on", "description": "GPT-4o, prompt v2"})
    organiser.post(page(campaign), {"annotator": bob.pk, "description": ""})  # unticked, box left empty
    profile = AnnotatorProfile.objects.get(user=bob)
    assert not profile.is_automatic and profile.description == "GPT-4o, prompt v2"


def test_an_account_that_works_in_another_campaign_cannot_be_marked_from_this_one(organiser, campaign, demo):
    from annotator.models import Assignment
    from annotator.scores.per_conversation import gold_annotators
    from tests.factories import make_campaign, make_conversation

    bob = demo[2][1]
    elsewhere = make_conversation(make_campaign("other"), [("U", "hi"), ("S", "Primer (2004) is good")],
                                  annotators=[bob])
    response = organiser.post(page(campaign), {"annotator": bob.pk, "is_automatic": "on"})
    assert response.status_code == 400
    assert "Only an administrator can mark it" in response.content.decode()
    assert not AnnotatorProfile.objects.filter(user=bob, is_automatic=True).exists()
    assert gold_annotators([elsewhere]) == {elsewhere.pk: bob.pk}
    assert Assignment.objects.filter(annotator=bob, conversation=elsewhere).exists()
