"""A save's answer shows the score the save stored (annotator.scores.per_conversation.
scores_kept_for_answer): the same figures a fresh read gives, offered only once the save's
transaction has committed, and never outside the edit that computed it."""

import pytest
from django.db import transaction

from annotator.judgments import edits
from annotator.models import Grade, Nugget, StoredFigures
from annotator.scores import per_conversation, stored
from annotator.scores.per_conversation import score_conversation, scores_kept_for_answer
from tests.workspace.conftest import build_list


def _graded_elsewhere(nugget) -> Grade:
    return Grade.objects.filter(campaign=nugget.entity.topic.campaign).exclude(pk=nugget.entity.grade_id).order_by("level")[0]


@pytest.mark.django_db(transaction=True)  # real commits: the score is offered when the save commits
def test_the_score_a_save_stored_is_what_its_answer_reads_and_equals_a_fresh_score():
    conversation, annotator = build_list(12, username="kept")
    nugget = Nugget.objects.select_related("entity__topic__campaign").filter(turn__conversation=conversation).first()
    with scores_kept_for_answer():
        edits.update_entity(nugget.entity, actor=annotator, expected_version=nugget.entity.version,
                            grade=_graded_elsewhere(nugget))
        kept = per_conversation._kept_for_answer.get().scores
        assert list(kept) == [(conversation.pk, annotator.pk)]
        offered = kept[(conversation.pk, annotator.pk)]
        answered = score_conversation(conversation, annotator)
        assert answered is offered and not kept  # taken once: a later read in the block scores afresh
    fresh = score_conversation(conversation, annotator)
    row = StoredFigures.objects.get(conversation=conversation, annotator=annotator)
    assert (answered.R, answered.GF, answered.GFRC) == (fresh.R, fresh.GF, fresh.GFRC) == (row.r, row.gf, row.gfrc)
    assert answered.GF_m == fresh.GF_m == row.gf_sets
    assert [n.nugget.pk for n in answered.nuggets] == [n.nugget.pk for n in fresh.nuggets]


@pytest.mark.django_db(transaction=True)
def test_an_edit_rolled_back_after_storing_offers_no_score():
    conversation, annotator = build_list(3, username="rolled")
    nugget = Nugget.objects.select_related("entity__topic__campaign").filter(turn__conversation=conversation).first()
    before = score_conversation(conversation, annotator)
    with scores_kept_for_answer():
        with pytest.raises(RuntimeError), transaction.atomic():
            edits.update_entity(nugget.entity, actor=annotator, expected_version=nugget.entity.version,
                                grade=_graded_elsewhere(nugget))
            raise RuntimeError("the request failed after the save")
        assert per_conversation._kept_for_answer.get().scores == {}
        answered = score_conversation(conversation, annotator)
    assert (answered.R, answered.GFRC) == (before.R, before.GFRC)


@pytest.mark.django_db(transaction=True)
def test_outside_an_edit_a_save_keeps_nothing():
    conversation, annotator = build_list(3, username="outside")
    nugget = Nugget.objects.select_related("entity__topic__campaign").filter(turn__conversation=conversation).first()
    edits.update_entity(nugget.entity, actor=annotator, expected_version=nugget.entity.version,
                        grade=_graded_elsewhere(nugget))
    assert per_conversation._kept_for_answer.get() is None


@pytest.mark.django_db
def test_a_save_stores_the_same_row_as_the_campaign_wide_path_inputs_and_all():
    conversation, annotator = build_list(40, username="paths")  # two system turns, both memberships
    nuggets = list(Nugget.objects.select_related("entity__topic__campaign").filter(turn__conversation=conversation)
                   .order_by("-turn__position", "-start_word"))
    edits.delete_nugget(nuggets[0], actor=annotator, expected_version=nuggets[0].version)
    edits.update_entity(nuggets[1].entity, actor=annotator, expected_version=nuggets[1].entity.version,
                        grade=_graded_elsewhere(nuggets[1]))
    campaign = conversation.topic.campaign
    saved = StoredFigures.objects.get(conversation=conversation, annotator=annotator)
    [(c, a, r, gf, gfrc_value, gf_sets, inputs, lowest)] = stored._build(campaign, [conversation.pk], [annotator.pk])
    assert (c, a) == (conversation.pk, annotator.pk)
    assert (saved.r, saved.gf, saved.gfrc, saved.gf_sets, saved.lowest_distr_sim) == (r, gf, gfrc_value, gf_sets, lowest)
    assert lowest  # both sets have scored turns here
    assert saved.inputs == inputs


@pytest.mark.django_db
def test_within_an_edit_and_its_answer_a_topic_types_attribute_sets_are_read_once(django_assert_num_queries):
    conversation, _annotator = build_list(3, username="sets")
    type_id = conversation.topic.topic_type_id
    with scores_kept_for_answer():
        with django_assert_num_queries(1):
            first = per_conversation.attribute_sets_of(type_id)
        with django_assert_num_queries(0):
            again = per_conversation.attribute_sets_of(type_id)
    assert [a.pk for a in again] == [a.pk for a in first] and len(first) == 2
    with django_assert_num_queries(1):  # outside an edit: read each time
        per_conversation.attribute_sets_of(type_id)
