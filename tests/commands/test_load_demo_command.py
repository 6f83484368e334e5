"""load_demo: the demo campaign that shows every part of the product (fixtures/demo/), the demo
logins, and the paper's judged conversation as the README gives it, idempotently and fast."""

from __future__ import annotations

import filecmp
import importlib.util
import sys

import pytest
from django.contrib.auth import authenticate

from annotator.judgments import adjudication
from annotator.models import AnnotatorProfile, Assignment, Campaign, Conversation, Nugget, Run, Topic
from annotator.scores.per_conversation import score_conversation

from .helpers import ROOT, row_counts, run

pytestmark = pytest.mark.django_db


def paper_conversation() -> Conversation:
    return Conversation.objects.select_related("topic", "run").get(topic__code="M002", run__name="bing-trial1")


def test_load_demo_sets_up_the_campaign_the_logins_and_the_judged_example():
    out, _ = run("load_demo")
    assert "M002 / bing-trial1: 1 conversation(s) imported; 4 turns, 10 nuggets, 2 turn labels" in out
    assert out.rstrip().endswith(
        "Demo logins (user / password):\n"
        "  organiser / organiser   (organiser of the campaign)\n"
        "  annotator / annotator   (gold annotator of the demo conversations)\n"
        "  bea / bea   (gold annotator of topics Y; second annotator of some of annotator's)\n"
        "  carl / carl   (gold annotator of T001-T002; third annotator of two conversations)"
    )
    campaign = Campaign.objects.get(slug="fairweb1")
    assert "invented" in campaign.description.lower()
    for username in ("organiser", "annotator", "bea", "carl"):
        assert authenticate(username=username, password=username) is not None
    assert [u.username for u in campaign.organisers.all()] == ["organiser"]
    conversation = paper_conversation()
    annotator = authenticate(username="annotator", password="annotator")
    assert conversation.gold_annotator == annotator
    assert list(Assignment.objects.filter(conversation=conversation).exclude(AnnotatorProfile.automatic("annotator__"))
                .values_list("annotator", flat=True)) == [annotator.pk]
    assert Nugget.objects.filter(annotator=annotator, turn__conversation=conversation).count() == 10
    scores, _ = run("export_scores", "--campaign", "fairweb1")
    paper_row = next(line for line in scores.splitlines() if line.startswith("M002,bing-trial1,"))
    assert paper_row.startswith("M002,bing-trial1,annotator,0.0143")


def test_the_demo_has_a_baseline_automatic_judge_to_compare_with_the_gold():
    out, _ = run("load_demo")
    assert "M002 / bing-trial1: the baseline judge marked 10 nuggets" in out
    judge = AnnotatorProfile.objects.get(user__username="baseline")
    assert judge.is_automatic and judge.description.startswith("Baseline, not a model")
    assert not judge.user.has_usable_password()
    # on the paper's conversation (the topic's other conversations name other films, so nothing
    # is known): every gold nugget found, each graded with the top grade, no memberships
    paper = paper_conversation()
    gold, baseline = score_conversation(paper, paper.gold_annotator), score_conversation(paper, judge.user)
    assert (round(gold.R, 4), round(baseline.R, 4)) == (0.0143, 0.0151)
    assert (round(baseline.GF_m["RATINGS"], 4), round(baseline.GFRC, 4)) == (1.0, 0.4897)
    csv_out, _ = run("compare_judges", "--campaign", "fairweb1", "--judge", "baseline")
    assert csv_out.splitlines()[-1].startswith("GFRC,3,")  # three runs ranked: the first trials


def test_the_demo_gives_every_console_page_something_to_show():
    run("load_demo")
    campaign = Campaign.objects.get(slug="fairweb1")
    conversations = Conversation.objects.filter(topic__campaign=campaign)
    types = {code[0] for code in conversations.values_list("topic__code", flat=True)}
    assert types == {"M", "R", "Y", "T"}
    for kind in "MRYT":
        assert conversations.filter(topic__code__startswith=kind).values("topic").distinct().count() >= 3
    runs = Run.objects.filter(campaign=campaign, kind=Run.Kind.CONVERSATIONS)
    assert sorted(runs.values_list("name", flat=True)) == [
        "bing-trial1", "bing-trial2", "chatgpt-trial1", "chatgpt-trial2", "perplexity-trial1", "perplexity-trial2"]
    assert Run.objects.filter(campaign=campaign, kind=Run.Kind.RANKED_LISTS).count() == 3  # the pilot's web runs
    assert Topic.objects.filter(campaign=campaign, code__in=["P001", "P002", "P003", "P004"]).count() == 4
    assert Nugget.objects.filter(annotator__username="citations").count() > 100  # the systems' own citations
    # disagreements of every kind wait for adjudication, with two and with three annotators
    kinds, widths = set(), set()
    for conversation in conversations:
        humans = [a.annotator for a in conversation.assignments.exclude(AnnotatorProfile.automatic("annotator__"))
                  .select_related("annotator").order_by("pk")]
        if len(humans) >= 2:
            found = adjudication.adjudication(conversation, humans)
            kinds |= {d.kind for d in found.disagreements}
            widths.add(len(humans))
    assert kinds == {"span", "grade", "membership", "label"} and widths == {2, 3}
    # unfinished work in annotator's queue: conversations not begun, nuggets ungraded
    mine = Assignment.objects.filter(annotator__username="annotator")
    untouched = [a for a in mine if not Nugget.objects.filter(annotator=a.annotator, turn__conversation=a.conversation).exists()]
    assert len(untouched) >= 2
    assert Nugget.objects.filter(annotator__username="annotator", entity__grade__isnull=True).exists()


def test_load_demo_twice_changes_nothing():
    run("load_demo")
    before = row_counts()
    out, _ = run("load_demo")
    assert "M002 / bing-trial1: already loaded" in out and "Campaign fairweb1 unchanged." in out
    assert row_counts() == before


def test_the_demo_files_are_what_their_script_writes(tmp_path):
    spec = importlib.util.spec_from_file_location("make_demo_fixtures", ROOT / "scripts" / "make_demo_fixtures.py")
    script = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = script  # dataclasses look their module up
    spec.loader.exec_module(script)
    script.main(tmp_path)
    demo = ROOT / "fixtures" / "demo"
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert written and all(filecmp.cmp(tmp_path / p, demo / p, shallow=False) for p in written)
    for path in written:
        assert "INVENTED" in (tmp_path / path).read_text(), path
