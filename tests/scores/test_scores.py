"""The Django adapter gives the paper's figures from rows in the database, in a fixed number of queries."""

from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.models import Nugget
from annotator.scores.campaign_tables import score_table
from annotator.scores.per_conversation import score_conversation
from scoring.words import tokenise
from tests.factories import make_campaign, make_conversation, make_user, mark

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "M002-bing-trial1.txt"

pytestmark = pytest.mark.django_db


def paper_example():
    """Turns of the example file, and per nugget (turn position, first word, last word, grade, memberships)."""
    from annotator.rules.vectors import parse_vector

    turns, nuggets = [], []
    for line in EXAMPLE.read_text().splitlines():
        if line.startswith("#####"):
            continue
        if line.startswith("### "):
            turns.append([line.split()[1][0], []])
        elif line.startswith("#L"):
            nuggets[-1]["grade"] = line[1:3]
        elif line.startswith("#"):
            name, rest = line[1:].split(":", 1)
            nuggets[-1]["memberships"][name] = list(parse_vector(rest.split("#")[0]))
        elif line.startswith("wc="):
            nuggets[-1]["declared"] = int(line.split("=")[1])
        else:
            words_before = sum(len(tokenise(t)) for t in turns[-1][1])
            turns[-1][1].append(line)
            if "imdb.com" in line:
                nuggets.append({
                    "turn": len(turns), "start": words_before, "end": words_before + len(tokenise(line)) - 1,
                    "memberships": {},
                })
    return [(role, "\n".join(lines)) for role, lines in turns], nuggets


def build_example():
    annotator = make_user("gold")
    campaign = make_campaign()
    turns, nuggets = paper_example()
    conversation = make_conversation(campaign, turns, annotators=[annotator])
    for n in nuggets:
        mark(conversation, annotator, n["turn"], n["start"], n["end"], n["grade"], n["memberships"])
    return conversation, annotator, nuggets


def test_the_paper_example_scores_as_in_tables_1_and_2():
    conversation, annotator, declared = build_example()
    score = score_conversation(conversation, annotator)
    assert [n.wc for n in score.nuggets] == [35, 39, 43, 46, 51, 91, 96, 99, 104, 107]
    assert [n.wc for n in score.nuggets] == [n["declared"] for n in declared]
    assert round(score.R, 4) == 0.0143
    s1, s2 = score.system_turns
    assert round(s1.distr_sim["RATINGS"], 4) == 0.6773 and round(s2.distr_sim["RATINGS"], 4) == 0.4796
    assert round(s1.distr_sim["ORIGIN"], 4) == 0.4303 and round(s2.distr_sim["ORIGIN"], 4) == 0.4682
    # The paper prints 0.5785, the mean of its rounded per-turn figures; the exact mean is 0.57842.
    assert score.GF_m["RATINGS"] == pytest.approx(0.5785, abs=1e-4)
    assert round(score.GF_m["ORIGIN"], 4) == 0.4492
    assert s1.achieved["RATINGS"] == pytest.approx([0, 0, 0.6, 0.4])


def test_scoring_one_conversation_takes_the_same_queries_for_ten_nuggets_as_for_one():
    conversation, annotator, _ = build_example()
    conversation = type(conversation).objects.select_related("topic__campaign").get(pk=conversation.pk)
    with CaptureQueriesContext(connection) as ten:
        score_conversation(conversation, annotator)
    Nugget.objects.filter(turn__conversation=conversation).exclude(
        pk=Nugget.objects.filter(turn__conversation=conversation).first().pk
    ).delete()
    with CaptureQueriesContext(connection) as one:
        assert len(score_conversation(conversation, annotator).nuggets) == 1
    # 1. attribute sets of the topic type, 2. turns, 3. nuggets with entity and grade, 4. memberships
    assert len(ten) == len(one) == 4


def fresh(conversation):
    """The conversation as a view reads it: with its topic and campaign as they are now."""
    return type(conversation).objects.select_related("topic__campaign").get(pk=conversation.pk)


@pytest.mark.parametrize(
    "change",
    [
        "grade gain",
        "membership vector",
        "entity name",
        "nugget span",
        "campaign alpha",
        "attribute set target",
        "another annotator's work does not count",
    ],
)
def test_any_change_to_what_the_score_is_made_of_gives_a_new_score(change):
    from annotator.models import AttributeSet, Campaign, Entity, Grade, Membership

    conversation, annotator, _ = build_example()
    before = score_conversation(fresh(conversation), annotator)
    first = Nugget.objects.filter(turn__conversation=conversation, annotator=annotator).order_by("pk").first()
    if change == "grade gain":
        Grade.objects.filter(campaign=conversation.topic.campaign, label="L1").update(gain=0.25)
    elif change == "membership vector":
        Membership.objects.filter(entity=first.entity, attribute_set__name="ORIGIN").update(vector=[0, 0, 0, 0, 0, 0, 0, 1])
    elif change == "entity name":
        Entity.objects.filter(pk=first.entity_id).update(name="Renamed")
    elif change == "nugget span":
        Nugget.objects.filter(pk=first.pk).update(end_word=first.end_word - 1)
    elif change == "campaign alpha":
        Campaign.objects.filter(pk=conversation.topic.campaign_id).update(alpha=0.9)
    elif change == "attribute set target":
        target = AttributeSet.objects.get(topic_type=conversation.topic.topic_type, name="ORIGIN").target
        AttributeSet.objects.filter(topic_type=conversation.topic.topic_type, name="ORIGIN").update(target=target[::-1])
    else:
        other = make_user("other")
        conversation.assignments.create(annotator=other)
        mark(conversation, other, 2, 0, 3, "L2", {})
        after = score_conversation(fresh(conversation), annotator)
        assert (after.R, after.GF, len(after.nuggets)) == (before.R, before.GF, len(before.nuggets))
        return
    after = score_conversation(fresh(conversation), annotator)
    expected = {
        "grade gain": lambda: after.R != before.R,
        "membership vector": lambda: after.GF != before.GF,
        "entity name": lambda: after.nuggets[0].nugget.entity.name == "Renamed",
        "nugget span": lambda: after.nuggets[0].wc == before.nuggets[0].wc - 1,
        "campaign alpha": lambda: after.settings.alpha == 0.9 and after.GFRC != before.GFRC,
        "attribute set target": lambda: after.GF_m["ORIGIN"] != before.GF_m["ORIGIN"],
    }[change]
    assert expected()


def test_the_campaign_table_scores_each_conversation_from_its_judge():
    conversation, annotator, _ = build_example()
    table = score_table(conversation.topic.campaign)
    row = table.iloc[0]
    assert (row.topic, row.run, row.judge) == ("M002", "bing-trial1", annotator.pk)
    assert round(row.R, 4) == 0.0143
    assert row.GF_RATINGS == pytest.approx(0.5785, abs=1e-4) and round(row.GF_ORIGIN, 4) == 0.4492
    assert row.GFRC == pytest.approx(0.5 * row.R + 0.5 * (row.GF_RATINGS + row.GF_ORIGIN) / 2)
