"""load_demo: the campaign, the demo logins and the paper's judged conversation, idempotently."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import authenticate

from annotator.models import AnnotatorProfile, Assignment, Campaign, Conversation, Nugget

from .helpers import row_counts, run

pytestmark = pytest.mark.django_db


def test_load_demo_sets_up_the_campaign_the_logins_and_the_judged_example():
    out, _ = run("load_demo")
    assert "M002 / bing-trial1: 1 conversation(s) imported; 4 turns, 10 nuggets, 2 turn labels" in out
    assert out.rstrip().endswith(
        "Demo logins (user / password):\n"
        "  organiser / organiser   (organiser of the campaign)\n"
        "  annotator / annotator   (gold annotator of the demo conversations)"
    )
    campaign = Campaign.objects.get(slug="fairweb1")
    organiser, annotator = authenticate(username="organiser", password="organiser"), authenticate(username="annotator", password="annotator")
    assert organiser is not None and annotator is not None
    assert list(campaign.organisers.all()) == [organiser]
    conversation = Conversation.objects.get()
    assert (conversation.topic.code, conversation.run.name, conversation.gold_annotator) == ("M002", "bing-trial1", annotator)
    assert list(Assignment.objects.exclude(AnnotatorProfile.automatic("annotator__")).values_list("annotator", flat=True)) == [annotator.pk]
    assert Nugget.objects.filter(annotator=annotator).count() == 10
    scores, _ = run("export_scores", "--campaign", "fairweb1")
    assert scores.splitlines()[1].startswith("M002,bing-trial1,annotator,0.0143")


def test_the_demo_has_a_baseline_automatic_judge_to_compare_with_the_gold():
    out, _ = run("load_demo")
    assert "M002 / bing-trial1: the baseline judge marked 10 nuggets" in out
    judge = AnnotatorProfile.objects.get(user__username="baseline")
    assert judge.is_automatic and judge.description.startswith("Baseline, not a model")
    assert not judge.user.has_usable_password()
    csv_out, _ = run("compare_judges", "--campaign", "fairweb1", "--judge", "baseline")
    # the paper's annotator marked exactly the URL lines; the topic has no other conversation
    # whose grades the baseline could reuse, so it finds every nugget, grades each with the top
    # grade and gives no memberships (uniform): R is close, GF far from the gold
    assert csv_out.splitlines()[-1] == "GFRC,1,,,0,0.225590"
    detail = json.loads(run("compare_judges", "--campaign", "fairweb1", "--judge", "baseline", "--format", "json")[0])
    gfrc = next(m for m in detail["measures"] if m["measure"] == "GFRC")
    assert gfrc["ranking"][0]["judge"] > gfrc["ranking"][0]["gold"]  # uniform memberships look fair
    assert detail["grades"]["confusion"][1] == [0, 0, 1, 0]  # Interstellar: gold L1, baseline L2


def test_load_demo_twice_changes_nothing():
    run("load_demo")
    before = row_counts()
    out, _ = run("load_demo")
    assert "M002 / bing-trial1: already loaded" in out and "Campaign fairweb1 unchanged." in out
    assert row_counts() == before
