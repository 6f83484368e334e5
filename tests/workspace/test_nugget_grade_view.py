"""Grading the nugget's entity with the campaign's grades (buttons and keys 0/1/2)."""

import re

import pytest
from django.urls import reverse

from annotator.models import AttributeSet, Entity, Nugget
from tests.factories import make_user
from tests.workspace.conftest import HTMX, line_span, changed

pytestmark = pytest.mark.django_db


def test_grading_sets_the_entitys_grade_and_refreshes_the_score(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "Interstellar")
    client.post(reverse("nugget-create", args=[conversation.pk]), {"turn": turn, "start": start, "end": end})
    nugget = Nugget.objects.select_related("entity").get()
    response = client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
                           {"grade": 1, "version": nugget.entity.version}, headers=HTMX)
    assert response.status_code == 200 and changed(response)
    nugget.entity.refresh_from_db()
    assert nugget.entity.grade.label == "L1"
    html = response.content.decode()
    assert 'id="grade-1" data-grade-key="1"\n                      class="grade-btn g1" aria-pressed="true"' in html
    assert "WC 46 · L1" in html


def test_a_grade_the_campaign_does_not_have_is_refused(client, paper):
    conversation, annotator, _ = paper
    nugget = Nugget.objects.select_related("entity").first()
    client.force_login(annotator)
    response = client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
                           {"grade": 7, "version": nugget.entity.version}, headers=HTMX)
    assert response.status_code == 422


def test_grading_with_an_old_version_is_a_conflict_with_the_latest_state(client, paper):
    conversation, annotator, _ = paper
    nugget = Nugget.objects.select_related("entity").first()
    client.force_login(annotator)
    response = client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
                           {"grade": 0, "version": nugget.entity.version - 1}, headers=HTMX)
    assert response.status_code == 409 and "changed by someone else" in response.content.decode()
    nugget.entity.refresh_from_db()
    assert nugget.entity.grade.label == "L2"


def test_an_annotator_cannot_grade_another_annotators_entity(client, paper):
    conversation, _, _ = paper
    nugget = Nugget.objects.select_related("entity").first()
    client.force_login(make_user("stranger"))
    assert client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
                       {"grade": 0, "version": nugget.entity.version}).status_code == 404


def test_grading_answers_with_only_the_marks_and_badges_of_the_entitys_nuggets(client, paper):
    conversation, annotator, _ = paper
    nugget = Nugget.objects.select_related("entity", "turn").order_by("turn__position", "start_word").first()
    s2 = conversation.turns.get(position=4)
    client.force_login(annotator)
    response = client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
                           {"grade": 1, "version": nugget.entity.version}, headers=HTMX)
    assert response.status_code == 200 and changed(response)
    assert response["HX-Reswap"] == "none"  # everything in the answer is out of band
    html = response.content.decode()
    # a grade changes the look of the entity's nuggets, not their lines or turns
    assert '<section class="turn' not in html and '<div class="line' not in html and f'id="t1-{s2.pk}"' not in html
    mark = f'<mark class="nugget g1 selected" id="mk-{nugget.pk}-{nugget.start_word}" data-nugget="{nugget.pk}"'
    # morphed: the mark keeps its words (annotate.js takes only its attributes), the badge its element
    assert html.count("<mark ") == 1 and mark in html and 'hx-swap-oob="morph">' in html.split(mark)[1][:200]
    badge = re.search(rf'<a class="wc" [^>]*id="badge-{nugget.pk}"[^>]*hx-swap-oob="morph">([^<]*)</a>', html)
    assert badge and badge.group(1) == "WC 35 · L1"
    page = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert "WC 35 · L1</a>" in page


def test_grading_answers_with_the_editors_changed_parts_and_the_entitys_new_version_not_the_editor(client, paper):
    conversation, annotator, _ = paper
    nugget = Nugget.objects.select_related("entity").order_by("turn__position", "start_word").first()
    client.force_login(annotator)
    html = client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
                       {"grade": 1, "version": nugget.entity.version}, headers=HTMX).content.decode()
    version = Entity.objects.get(pk=nugget.entity_id).version
    assert version == nugget.entity.version + 1
    assert 'id="editor"' not in html and 'id="membership-' not in html and 'id="details-form"' not in html
    assert 'id="entity-head"' not in html and 'id="selected-holder"' not in html and 'id="ws-progress"' not in html
    for part in ('<div id="editor-summary"', '<form class="grade-form" id="grade-form"'):
        assert re.search(re.escape(part) + r'[^>]*hx-swap-oob="morph"', html), part
    summary = html.split('<div id="editor-summary" hx-swap-oob="morph">')[1]
    assert summary.lstrip().startswith('<div id="flash"') and '<div id="entity-versions" hidden>' in summary
    # seven swaps in all: the mark and the badge, the two editor parts, the figures, a Table 2 block, a Table 1 row
    assert html.count("hx-swap-oob") == 7
    assert re.search(r'id="grade-1"[^>]*aria-pressed="true"', html)
    # every form of the entity sends its new version (one input per form, by the form attribute)
    versions = html.split('<div id="entity-versions"')[1].split("</div>")[0]
    sets = AttributeSet.objects.filter(topic_type=conversation.topic.topic_type)
    forms = ["grade-form", "details-form"] + [f"membership-{a.pk}" for a in sets]
    assert sorted(re.findall(r'form="([^"]+)"', versions)) == sorted(forms)
    assert set(re.findall(r'value="(\d+)"', versions)) == {str(version)}
    page = client.get(reverse("conversation", args=[conversation.pk]) + f"?nugget={nugget.pk}").content.decode()
    for form in forms:  # each of those forms is on the page, with no version of its own
        assert f'id="{form}"' in page
    assert page.count(f'<input type="hidden" form="') == len(forms)


def test_a_refused_grade_answers_with_the_editor_and_no_turns(client, paper):
    conversation, annotator, _ = paper
    nugget = Nugget.objects.select_related("entity").first()
    client.force_login(annotator)
    response = client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
                           {"grade": 7, "version": nugget.entity.version}, headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 422 and '<section class="turn' not in html and 'id="editor"' in html


def test_grading_answers_with_the_table_2_blocks_of_those_turns_as_the_page_then_shows_them(client, paper):
    import re

    conversation, annotator, _ = paper
    nugget = Nugget.objects.select_related("entity").order_by("turn__position", "start_word").first()
    s2 = conversation.turns.get(position=4)
    client.force_login(annotator)
    html = client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
                       {"grade": 1, "version": nugget.entity.version}, headers=HTMX).content.decode()
    assert 'id="table-2"' not in html  # not the whole table: the blocks of the graded turns
    assert f'<div class="turn-score" id="t2-{nugget.turn_id}" hx-swap-oob="morph">' in html
    assert f'id="t2-{s2.pk}"' not in html  # the independent method: S2's distribution is its own
    block = re.search(rf'<div class="turn-score" id="t2-{nugget.turn_id}" hx-swap-oob="morph">(.*?)</table></div></div>',
                      html, re.S).group(1)
    page = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert f'<div class="turn-score" id="t2-{nugget.turn_id}">{block}</table></div></div>' in page


def test_under_the_cumulative_method_grading_answers_with_the_table_2_blocks_from_that_turn_on(client, paper):
    conversation, annotator, _ = paper
    campaign = conversation.topic.campaign
    campaign.method = "cumulative"
    campaign.save()
    s1, s2 = conversation.turns.get(position=2), conversation.turns.get(position=4)
    later = Nugget.objects.select_related("entity").filter(turn=s2).first()
    first = Nugget.objects.select_related("entity").filter(turn=s1).first()
    client.force_login(annotator)
    html = client.post(reverse("nugget-grade", args=[conversation.pk, first.pk]),
                       {"grade": 1, "version": first.entity.version}, headers=HTMX).content.decode()
    assert f'id="t2-{s1.pk}"' in html and f'id="t2-{s2.pk}"' in html  # S2 pools S1's nuggets
    html = client.post(reverse("nugget-grade", args=[conversation.pk, later.pk]),
                       {"grade": 1, "version": later.entity.version}, headers=HTMX).content.decode()
    assert f'id="t2-{s2.pk}"' in html and f'id="t2-{s1.pk}"' not in html
