"""Marking a nugget: a selection, a whole line or an accepted suggestion."""

import pytest
from django.urls import reverse

from annotator.models import Entity, Nugget
from tests.factories import make_campaign, make_conversation, make_user, mark
from tests.workspace.conftest import HTMX, build_harvest, changed, line_span

pytestmark = pytest.mark.django_db


def _create(client, conversation, turn, start, end, **headers):
    return client.post(reverse("nugget-create", args=[conversation.pk]),
                       {"turn": turn, "start": start, "end": end}, headers=headers)


def test_marking_words_of_a_system_turn_makes_a_nugget_with_its_wc_badge_at_once(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "Back to the Future")
    response = _create(client, conversation, turn, start, end, **HTMX)
    assert response.status_code == 200
    assert changed(response)
    html = response.content.decode()
    assert "WC 35" in html and 'hx-swap-oob="true"' in html and "Nugget in S1 · WC 35" in html
    nugget = Nugget.objects.get(annotator=annotator)
    assert (nugget.start_word, nugget.end_word) == (start, end)
    assert nugget.entity.key == "https://imdb.com/title/tt0088763" and nugget.entity.name == "Back to the Future (1985)"


def test_a_selection_in_a_user_turn_is_refused_with_a_message(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    user_turn = conversation.turns.get(position=1)
    response = _create(client, conversation, user_turn.pk, 0, 3, **HTMX)
    assert response.status_code == 422
    assert "Nuggets are parts of system turns; this is a user turn." in response.content.decode()
    assert not Nugget.objects.exists()


def test_words_that_overlap_a_nugget_are_refused(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "Back to the Future")
    _create(client, conversation, turn, start, end, **HTMX)
    response = _create(client, conversation, turn, end, end + 2, **HTMX)
    assert response.status_code == 422 and "overlap" in response.content.decode()
    assert Nugget.objects.count() == 1


def test_a_plain_form_post_marks_the_nugget_and_goes_back_to_the_page(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "Groundhog Day")
    response = _create(client, conversation, turn, start, end)
    nugget = Nugget.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("conversation", args=[conversation.pk]) + f"?nugget={nugget.pk}#editor"


def test_an_accepted_url_the_topic_already_knows_brings_its_grade_and_memberships(client):
    annotator = make_user("ann")
    campaign = make_campaign()
    line = "Back to the Future (1985): https://www.imdb.com/title/tt0088763/"
    bing = make_conversation(campaign, [("U", "movies?"), ("S", line)], run="bing", annotators=[annotator])
    bard = make_conversation(campaign, [("U", "movies?"), ("S", "Try " + line.replace("www.", ""))], run="bard",
                             annotators=[annotator])
    known = mark(bing, annotator, 2, 0, 5, "L2", {"RATINGS": [0, 0, 0, 1]}).entity
    client.force_login(annotator)
    turn = bard.turns.get(position=2)
    response = _create(client, bard, turn.pk, 1, 6, **HTMX)
    nugget = Nugget.objects.get(turn=turn)
    assert nugget.entity == known and Entity.objects.count() == 1
    html = response.content.decode()
    assert "WC 8 · L2" in html and "(0,0,0,1)" in html


def test_a_second_mention_of_an_entity_is_shown_as_a_duplicate_that_gains_nothing(client):
    annotator = make_user("ann")
    campaign = make_campaign()
    line = "Looper (2012): https://www.imdb.com/title/tt1276104/"
    conversation = make_conversation(
        campaign, [("U", "movies?"), ("S", line), ("U", "more?"), ("S", line)], annotators=[annotator]
    )
    mark(conversation, annotator, 2, 0, 2, "L2")
    client.force_login(annotator)
    response = _create(client, conversation, conversation.turns.get(position=4).pk, 0, 2, **HTMX)
    html = response.content.decode()
    assert "WC 8 · L2 · dup" in html and "duplicate: gains nothing" in html
    # the save's own answer carries the panel's new Table 1 row: no second request
    assert '<span class="badge dup">dup</span>' in html
    assert '<td class="num">8</td><td class="num">0.9944</td><td class="num">1</td><td class="num">0.0000</td>' in html


def test_an_annotator_cannot_mark_nuggets_in_another_annotators_conversation(client, bare_paper):
    conversation, _, _ = bare_paper
    client.force_login(make_user("stranger"))
    turn, start, end = line_span(conversation, 2, "Groundhog Day")
    assert _create(client, conversation, turn, start, end).status_code == 404
    assert not Nugget.objects.exists()


def test_a_turn_of_another_conversation_is_refused(client, bare_paper):
    conversation, annotator, _ = bare_paper
    other = make_conversation(conversation.topic.campaign, [("U", "q"), ("S", "a b c")], run="other")
    client.force_login(annotator)
    response = _create(client, conversation, other.turns.get(position=2).pk, 0, 1, **HTMX)
    assert response.status_code == 422 and not Nugget.objects.exists()


def test_marking_requires_login(client, bare_paper):
    conversation, _, _ = bare_paper
    assert _create(client, conversation, 1, 0, 0).status_code == 302


def test_the_answer_to_a_save_is_the_changed_turn_out_of_band_and_the_new_selection(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "Back to the Future")
    response = _create(client, conversation, turn, start, end, **HTMX)
    nugget = Nugget.objects.get()
    html = response.content.decode()
    assert response["HX-Reswap"] == "none" and 'id="turns"' not in html
    assert f'<section class="turn turn-system" id="turn-{turn}"' in html and html.count('<section class="turn') == 1
    assert f'data-selected="{nugget.pk}" hx-swap-oob="true"' in html


def test_the_page_and_an_undo_still_render_the_whole_column(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "Back to the Future")
    _create(client, conversation, turn, start, end, **HTMX)
    response = client.post(reverse("undo", args=[conversation.pk]), headers=HTMX)
    html = response.content.decode()
    assert 'id="turns"' in html and html.count('<section class="turn') == conversation.turns.count()
    assert "HX-Reswap" not in response


def test_a_refused_save_sends_no_score_panel_since_nothing_changed(client, bare_paper):
    conversation, annotator, _ = bare_paper
    other = make_conversation(conversation.topic.campaign, [("U", "q"), ("S", "a b c")], run="other")
    client.force_login(annotator)
    response = _create(client, conversation, other.turns.get(position=2).pk, 0, 1, **HTMX)
    assert response.status_code == 422 and 'id="score-panel"' not in response.content.decode()


def test_accepting_a_cited_span_links_the_nugget_to_the_page_the_system_cited(client, db):
    conversation, gold = build_harvest()
    client.force_login(gold)
    cited = Nugget.objects.get(annotator__username="citations", start_word=12)
    response = client.post(reverse("nugget-create", args=[conversation.pk]),
                           {"turn": cited.turn_id, "start": 12, "end": 17, "cited": cited.pk}, headers=HTMX)
    assert response.status_code == 200
    mine = Nugget.objects.select_related("entity").get(annotator=gold)
    assert (mine.start_word, mine.end_word, mine.entity.key, mine.entity.name) == (
        12, 17, "https://imdb.com/title/tt0441909", "Volver (2006) - IMDb")
    assert mine.entity.grade is None  # the annotator grades it: the system's claim is not a judgment
    assert response.content.decode().count("cited by the system:") == 1  # the other one is still suggested


def test_a_cited_span_of_another_turn_or_annotator_is_refused(client, db):
    conversation, gold = build_harvest()
    client.force_login(gold)
    s1 = conversation.turns.get(position=2)
    cited = Nugget.objects.get(annotator__username="citations", start_word=12)
    response = client.post(reverse("nugget-create", args=[conversation.pk]),
                           {"turn": s1.pk, "start": 0, "end": 1, "cited": cited.pk}, headers=HTMX)
    assert response.status_code == 422 and "The system cited nothing there." in response.content.decode()
    assert not Nugget.objects.filter(annotator=gold).exists()
