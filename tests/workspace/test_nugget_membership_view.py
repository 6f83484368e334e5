"""Memberships: click a group, split among several, type a vector with fractions, or type
evidence that the attribute set's helper turns into a vector (the raw evidence is kept)."""

import pytest
from django.urls import reverse

from annotator.models import AttributeSet, Membership, Nugget
from tests.factories import make_user
from tests.workspace.conftest import HTMX, line_span, changed

pytestmark = pytest.mark.django_db


@pytest.fixture
def marked(client, bare_paper):
    conversation, annotator, _ = bare_paper
    AttributeSet.objects.filter(name="RATINGS").update(helper={"bands": [100, 10000, 1000000]})
    AttributeSet.objects.filter(name="ORIGIN").update(helper={"mapping": {
        "United Kingdom": "Europe", "United States": "America", "Canada": "America", "China": "Asia",
    }})
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "The Terminator")
    client.post(reverse("nugget-create", args=[conversation.pk]), {"turn": turn, "start": start, "end": end})
    return conversation, Nugget.objects.select_related("entity").get()


def _post(client, conversation, nugget, name, data):
    attribute_set = AttributeSet.objects.get(name=name)
    nugget.entity.refresh_from_db()
    payload = {f"m{attribute_set.pk}-{k}": v for k, v in data.items()}
    payload[f"m{attribute_set.pk}-version"] = nugget.entity.version
    return client.post(reverse("nugget-membership", args=[conversation.pk, nugget.pk, attribute_set.pk]),
                       payload, headers=HTMX)


def _membership(name):
    return Membership.objects.get(attribute_set__name=name)


def test_clicking_a_group_gives_it_the_whole_membership(client, marked):
    conversation, nugget = marked
    response = _post(client, conversation, nugget, "RATINGS", {"group": 2})
    assert response.status_code == 200 and changed(response)
    assert _membership("RATINGS").vector == [0, 0, 1, 0]


def test_ticking_several_groups_splits_the_membership_equally(client, marked):
    conversation, nugget = marked
    _post(client, conversation, nugget, "ORIGIN", {"split": [1, 5], "do": "split"})
    assert _membership("ORIGIN").vector == [0, 0.5, 0, 0, 0, 0.5, 0, 0]


def test_ticked_boxes_do_not_count_when_a_vector_is_saved(client, marked):
    conversation, nugget = marked
    _post(client, conversation, nugget, "ORIGIN", {"split": [1, 5], "vector": "(0,1,0,0,0,0,0,0)", "do": "typed"})
    assert _membership("ORIGIN").vector == [0, 1, 0, 0, 0, 0, 0, 0]


def test_a_typed_vector_with_fractions_is_saved_with_its_note(client, marked):
    conversation, nugget = marked
    response = _post(client, conversation, nugget, "ORIGIN",
                     {"vector": "(0,1/2,0,0,0,1/2,0,0)", "evidence": "United Kingdom,United States"})
    assert response.status_code == 200
    membership = _membership("ORIGIN")
    assert membership.vector == [0, 0.5, 0, 0, 0, 0.5, 0, 0] and membership.evidence == "United Kingdom,United States"
    assert "(0,1/2,0,0,0,1/2,0,0)" in response.content.decode()


def test_evidence_alone_is_turned_into_a_vector_by_the_helper_and_kept(client, marked):
    conversation, nugget = marked
    _post(client, conversation, nugget, "RATINGS", {"evidence": "1.3M"})
    _post(client, conversation, nugget, "ORIGIN", {"evidence": "United Kingdom, United States"})
    assert _membership("RATINGS").vector == [0, 0, 0, 1] and _membership("RATINGS").evidence == "1.3M"
    assert _membership("ORIGIN").vector == [0, 0.5, 0, 0, 0, 0.5, 0, 0]
    assert _membership("ORIGIN").evidence == "United Kingdom, United States"


def test_a_vector_that_does_not_sum_to_one_is_shown_and_refused(client, marked):
    conversation, nugget = marked
    response = _post(client, conversation, nugget, "ORIGIN", {"vector": "(0,1/2,0,0,0,1/3,0,0)"})
    assert response.status_code == 422
    html = response.content.decode()
    assert "The ORIGIN vector sums to 0.833333, not 1." in html and 'aria-invalid="true"' in html
    assert 'value="(0,1/2,0,0,0,1/3,0,0)"' in html  # what was typed stays for correction
    assert not Membership.objects.exists()


def test_a_vector_of_the_wrong_length_is_refused(client, marked):
    conversation, nugget = marked
    response = _post(client, conversation, nugget, "RATINGS", {"vector": "(1/2,1/2)"})
    assert response.status_code == 422 and "has 2 values, expected 4" in response.content.decode()


def test_evidence_the_helper_cannot_read_is_refused_with_what_to_type(client, marked):
    conversation, nugget = marked
    response = _post(client, conversation, nugget, "ORIGIN", {"evidence": "Narnia"})
    assert response.status_code == 422 and "unknown value(s): Narnia" in response.content.decode()
    assert not Membership.objects.exists()


def test_an_old_version_is_a_conflict(client, marked):
    conversation, nugget = marked
    attribute_set = AttributeSet.objects.get(name="RATINGS")
    response = client.post(
        reverse("nugget-membership", args=[conversation.pk, nugget.pk, attribute_set.pk]),
        {f"m{attribute_set.pk}-group": 1, f"m{attribute_set.pk}-version": nugget.entity.version + 3}, headers=HTMX,
    )
    assert response.status_code == 409 and not Membership.objects.exists()


def test_an_annotator_cannot_set_memberships_of_another_annotators_entity(client, marked):
    conversation, nugget = marked
    client.force_login(make_user("stranger"))
    assert _post(client, conversation, nugget, "RATINGS", {"group": 1}).status_code == 404


def test_without_javascript_a_refused_vector_comes_back_on_the_whole_page(client, marked):
    conversation, nugget = marked
    attribute_set = AttributeSet.objects.get(name="ORIGIN")
    nugget.entity.refresh_from_db()
    response = client.post(
        reverse("nugget-membership", args=[conversation.pk, nugget.pk, attribute_set.pk]),
        {f"m{attribute_set.pk}-vector": "(1,1,0,0,0,0,0,0)", f"m{attribute_set.pk}-do": "typed",
         f"m{attribute_set.pk}-version": nugget.entity.version},
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "<html" in html and "The ORIGIN vector sums to 2, not 1." in html and not Membership.objects.exists()


def test_a_saved_membership_answers_with_its_form_and_the_new_version_of_the_others(client, marked):
    conversation, nugget = marked
    html = _post(client, conversation, nugget, "RATINGS", {"group": 2}).content.decode()
    ratings, origin = AttributeSet.objects.get(name="RATINGS"), AttributeSet.objects.get(name="ORIGIN")
    version = Membership.objects.get(attribute_set=ratings).entity.version
    assert 'id="editor"' not in html
    form = html.split(f'<form class="membership" id="membership-{ratings.pk}" hx-swap-oob="morph"')[1].split("</form>")[0]
    assert f'id="group-{ratings.pk}-2" aria-pressed="true"' in form
    assert f'id="membership-{origin.pk}"' not in html
    assert f'<input type="hidden" form="membership-{origin.pk}" name="m{origin.pk}-version" value="{version}">' in html
    assert 'id="grade-form"' not in html
    # the summary no longer says RATINGS is missing
    summary = html.split('<div id="editor-summary" hx-swap-oob="morph">')[1].split('<div id="entity-versions"')[0]
    assert "no membership yet: ORIGIN" in summary and "RATINGS" not in summary
