import pytest
from django.urls import reverse

from annotator.models import Conversation
from annotator.scores.campaign_tables import score_table
from tests.console.conftest import assert_only_the_organiser_gets_in


@pytest.fixture
def doubled(campaign):
    return next(c for c in Conversation.objects.filter(topic__campaign=campaign) if c.assignments.count() == 2)


def url(conversation):
    return reverse("console:adjudicate", kwargs={"slug": conversation.topic.campaign.slug, "conversation": conversation.pk})


def test_only_the_campaigns_organiser_adjudicates(client_as, doubled, demo):
    assert_only_the_organiser_gets_in(client_as, url(doubled))
    assert_only_the_organiser_gets_in(client_as, url(doubled), "post", {"gold_annotator": demo[2][1].pk})
    doubled.refresh_from_db()
    assert doubled.gold_annotator is None


def test_the_page_shows_each_annotators_scores_side_by_side(organiser, doubled):
    response = organiser.get(url(doubled))
    assert response.status_code == 200
    assert [row["annotator"].username for row in response.context["scores"]] == ["ann", "bob"]
    assert "GFRC" in response.content.decode()


def test_picking_the_gold_makes_the_scores_use_it(organiser, doubled, demo):
    bob = demo[2][1]
    response = organiser.post(url(doubled), {"gold_annotator": bob.pk})
    assert response.status_code == 302
    doubled.refresh_from_db()
    assert doubled.gold_annotator == bob
    table = score_table(doubled.topic.campaign)
    assert table.loc[table["conversation"] == doubled.pk, "judge"].item() == bob.pk


def test_only_an_assigned_annotator_can_be_the_gold(organiser, doubled, client_as):
    from tests.factories import make_user

    stranger = make_user("stranger")
    response = organiser.post(url(doubled), {"gold_annotator": stranger.pk})
    assert response.status_code == 200 and response.context["form"].errors


def test_the_page_links_to_the_conversations_history_and_its_exports(organiser, doubled):
    page = organiser.get(url(doubled)).content.decode()
    for name in ("history:conversation", "history:conversation-csv", "history:conversation-json"):
        assert reverse(name, args=[doubled.pk]) in page


def decide_url(conversation, what="decide"):
    return reverse(f"console:adjudicate_{what}",
                   kwargs={"slug": conversation.topic.campaign.slug, "conversation": conversation.pk})


def test_only_the_campaigns_organiser_decides_or_undoes(client_as, doubled):
    assert_only_the_organiser_gets_in(client_as, decide_url(doubled), "post", {"unit": "label\x1f1", "take": "left", "version": 0})
    assert_only_the_organiser_gets_in(client_as, decide_url(doubled, "undo"), "post")
    assert not doubled.decisions.exists()


def test_each_disagreement_shows_both_sides_and_what_each_choice_does_to_the_scores(organiser, doubled):
    response = organiser.get(url(doubled))
    rows = response.context["rows"]
    assert rows, "the demo's doubled conversation has disagreements"
    for row in rows:
        assert [c.annotators for c in row["choices"]] == [[s.annotator] for s in row["d"].said]
        for choice in row["choices"]:
            assert choice.effect.refused or set(choice.effect.conversation) == {"R", "GF", "GFRC"}
    doubled.refresh_from_db()
    assert doubled.gold_annotator is None, "the preview writes nothing"
    assert "run mean GFRC" in response.content.decode()


def test_taking_a_side_settles_it_and_moves_to_the_next_open_disagreement(organiser, doubled):
    rows = organiser.get(url(doubled)).context["rows"]
    first = rows[0]["d"]
    response = organiser.post(decide_url(doubled), {"unit": first.unit, "take": "right", "version": 0})
    assert response.status_code == 302
    assert doubled.decisions.get().unit == first.unit
    if len(rows) > 1:
        from urllib.parse import quote
        assert response["Location"].endswith("?unit=" + quote(rows[1]["d"].unit))
    page = organiser.get(response["Location"])
    assert page.context["adjudicated"].find(first.unit).settled
    assert "Gold: " in page.content.decode()


def test_a_written_value_that_means_nothing_is_refused_and_nothing_is_decided(organiser, doubled, demo):
    from annotator.judgments import edits
    from annotator.models import TurnLabel

    label = TurnLabel.objects.get(turn__conversation=doubled, turn__number=1, annotator=demo[2][1])
    edits.set_turn_label(label.turn, annotator=label.annotator, actor=label.annotator,
                         label="x" if label.label == "o" else "o", expected_version=label.version)
    response = organiser.post(decide_url(doubled), {"unit": f"label\x1f{label.turn.position}", "take": "written", "value": "L9", "version": 0}, follow=True)
    assert "is not a turn label" in response.content.decode()
    assert not doubled.decisions.exists()
    organiser.post(decide_url(doubled), {"unit": f"label\x1f{label.turn.position}", "take": "written", "value": "-", "version": 0})
    doubled.refresh_from_db()
    assert TurnLabel.objects.get(turn__conversation=doubled, turn__number=1, annotator=doubled.gold_annotator).label == "-"


def test_undo_names_the_decision_it_undid_and_reselects_its_disagreement(organiser, doubled):
    first = organiser.get(url(doubled)).context["rows"][0]["d"]
    organiser.post(decide_url(doubled), {"unit": first.unit, "take": "right", "version": 0})
    response = organiser.post(decide_url(doubled, "undo"))
    page = organiser.get(response["Location"])
    assert page.context["selected"] == first.unit
    assert f"Undid: {first.what}" in page.content.decode()
    assert not doubled.decisions.exists()


def test_a_decision_on_a_gold_someone_changed_since_is_refused_and_nothing_is_decided(organiser, doubled):
    rows = organiser.get(url(doubled)).context["rows"]
    seen = organiser.get(url(doubled)).context["adjudicated"].version
    organiser.post(decide_url(doubled), {"unit": rows[0]["d"].unit, "take": "right", "version": seen})  # another tab
    assert doubled.decisions.count() == 1
    response = organiser.post(decide_url(doubled), {"unit": rows[-1]["d"].unit, "take": "left", "version": seen},
                              follow=True)
    assert "Someone else changed the gold of this conversation" in response.content.decode()
    assert doubled.decisions.count() == 1


# -- three annotators -----------------------------------------------------------------------


@pytest.fixture
def three(db):
    from tests.judgments.three_annotators import three_annotators

    return three_annotators()


def as_organiser(case):
    from django.test import Client

    client = Client()
    client.force_login(case.organiser)
    return client


def test_with_three_annotators_each_has_a_column_and_the_majority_is_named(three):
    response = as_organiser(three).get(url(three.conversation))
    assert [a.username for a in response.context["adjudicated"].annotators] == ["ann", "bob", "carol"]
    page = response.content.decode()
    assert "ann <span class=\"muted\">(1)</span>" in page and "carol <span class=\"muted\">(3)</span>" in page
    assert "majority: L2 (carol differs)" in page
    assert "no nugget here" in page
    primer = next(row for row in response.context["rows"] if "Primer" in row["d"].what)
    assert [[a.username for a in c.annotators] for c in primer["choices"]] == [["ann", "bob"], ["carol"]]
    assert "overlap" in primer["choices"][1].effect.refused
    assert f'value="{three.carol.pk}" class="take" data-side="3"' in page


def test_taking_the_third_annotators_value_settles_it_with_their_value(three):
    client = as_organiser(three)
    rows = client.get(url(three.conversation)).context["rows"]
    label = next(row["d"] for row in rows if row["d"].kind == "label")
    response = client.post(decide_url(three.conversation), {"unit": label.unit, "take": three.carol.pk, "version": 0})
    assert response.status_code == 302
    from annotator.models import TurnLabel

    three.conversation.refresh_from_db()
    gold = three.conversation.gold_annotator
    assert TurnLabel.objects.get(turn__conversation=three.conversation, annotator=gold).label == "x"
    assert three.conversation.decisions.get().taken_from == three.carol


def test_taking_a_value_nobody_of_the_conversation_gave_is_refused(three):
    from tests.factories import make_user

    client = as_organiser(three)
    rows = client.get(url(three.conversation)).context["rows"]
    stranger = make_user("stranger")
    response = client.post(decide_url(three.conversation), {"unit": rows[0]["d"].unit, "take": stranger.pk, "version": 0},
                           follow=True)
    assert "not an annotator of this conversation" in response.content.decode()
    assert not three.conversation.decisions.exists()


def test_the_pairs_of_three_annotators_read_their_judgments_once(doubled, django_assert_num_queries):
    from annotator.console import reports
    from annotator.models import Assignment
    from tests.factories import make_user, mark

    cat = make_user("cat")
    Assignment.objects.create(conversation=doubled, annotator=cat)
    mark(doubled, cat, 2, 0, 1, grade="L1")
    conversation = Conversation.objects.get(pk=doubled.pk)
    # 1 the human assignments; 2 their nuggets with turn and entity; 3 the entities' memberships; 4 the turns
    with django_assert_num_queries(4):
        pairs = reports.pair_reports(conversation)
    assert [(p.first.username, p.second.username) for p in pairs] == [("ann", "bob"), ("ann", "cat"), ("bob", "cat")]
    assert any("marked only by cat" in d for d in pairs[1].disagreements)


# -- the gold now, and the first selection ------------------------------------------------


def test_before_the_first_decision_the_gold_now_is_what_the_scores_use(organiser, doubled, demo):
    ann = demo[2][0]
    adjudicated = organiser.get(url(doubled)).context["adjudicated"]
    assert not adjudicated.gold_in_use
    judge_side = adjudicated.side_of(ann.pk)
    for d in adjudicated.disagreements:
        assert d.gold == judge_side.value(d.kind, d.parts), d.what
        assert d.shown_gold == d.said_by(ann.pk).shown, d.what
    assert any(d.shown_gold not in ("not given", "ungraded", "no nugget here") for d in adjudicated.disagreements)


def test_a_decision_in_one_conversation_is_not_the_gold_now_of_another_still_scored_from_its_judge(organiser, campaign, demo):
    ann, bob = demo[2]
    doubled = [c for c in Conversation.objects.filter(topic__campaign=campaign).order_by("pk") if c.assignments.count() == 2]
    pages = {c.pk: organiser.get(url(c)).context["adjudicated"] for c in doubled}
    shared = next((a, b, d) for a in doubled for b in doubled if a.pk != b.pk and a.topic_id == b.topic_id
                  for d in pages[a.pk].disagreements if d.kind == "grade" and pages[b.pk].find(d.unit) is not None)
    first, second, grade = shared
    organiser.post(decide_url(first), {"unit": grade.unit, "take": bob.pk, "version": 0})
    assert first.decisions.get().unit == grade.unit
    after = organiser.get(url(second)).context["adjudicated"]
    assert not after.gold_in_use
    assert after.find(grade.unit).gold == after.side_of(ann.pk).value("grade", grade.parts)
    assert after.find(grade.unit).gold != after.side_of(bob.pk).value("grade", grade.parts)


def test_a_fresh_page_selects_the_first_open_disagreement_so_its_keys_work_at_once(organiser, doubled):
    response = organiser.get(url(doubled))
    first = response.context["adjudicated"].disagreements[0]
    assert response.context["selected"] == first.unit
    assert 'class="disagreement selected" id="d-1"' in response.content.decode()
    organiser.post(decide_url(doubled), {"unit": first.unit, "take": "right", "version": 0})
    again = organiser.get(url(doubled))
    assert again.context["selected"] == next((d.unit for d in again.context["adjudicated"].disagreements if not d.settled), "")
