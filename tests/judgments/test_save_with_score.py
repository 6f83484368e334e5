"""A save's answer shows the score the save stored (annotator.judgments.edits.save_with_score,
which returns what annotator.scores.stored.writes.store_saved stored): the same figures a fresh read
gives and the stored row holds; nothing when the save was refused or ran inside another
service; and the answer's read takes it instead of reading and scoring the judgments again."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.judgments import edits
from annotator.models import Grade, Nugget, StoredFigures
from annotator.scores.stored import figures
from annotator.scores.per_conversation import score_conversation
from annotator.workspace.queries import read_workbench
from tests.factories import make_user
from tests.workspace.conftest import build_list


def _graded_elsewhere(nugget) -> Grade:
    return Grade.objects.filter(campaign=nugget.entity.topic.campaign).exclude(pk=nugget.entity.grade_id).order_by("level")[0]


def _first_nugget(conversation) -> Nugget:
    return Nugget.objects.select_related("entity__topic__campaign").filter(turn__conversation=conversation).first()


@pytest.mark.django_db(transaction=True)  # real commits: the score returned is the committed save's
def test_the_score_a_save_stored_is_what_it_returns_and_equals_a_fresh_score():
    conversation, annotator = build_list(12, username="kept")
    nugget = _first_nugget(conversation)
    saved = edits.save_with_score(edits.update_entity, nugget.entity, actor=annotator,
                                  expected_version=nugget.entity.version, grade=_graded_elsewhere(nugget))
    assert saved.result == nugget.entity  # what the service returns, unchanged
    answered = saved.score.score
    assert (saved.score.annotator_id, answered.conversation.pk) == (annotator.pk, conversation.pk)
    assert [a.name for a in saved.score.attribute_sets] == ["RATINGS", "ORIGIN"]
    fresh = score_conversation(conversation, annotator)
    row = StoredFigures.objects.get(conversation=conversation, annotator=annotator)
    assert (answered.R, answered.GF, answered.GFRC) == (fresh.R, fresh.GF, fresh.GFRC) == (row.r, row.gf, row.gfrc)
    assert answered.GF_m == fresh.GF_m == row.gf_sets
    assert [n.nugget.pk for n in answered.nuggets] == [n.nugget.pk for n in fresh.nuggets]


@pytest.mark.django_db(transaction=True)
def test_a_refused_save_returns_nothing_and_stores_nothing():
    conversation, annotator = build_list(3, username="refused")
    nugget = _first_nugget(conversation)
    before = StoredFigures.objects.get(conversation=conversation, annotator=annotator)
    with pytest.raises(edits.StaleEdit):
        edits.save_with_score(edits.update_entity, nugget.entity, actor=annotator,
                              expected_version=nugget.entity.version - 1, grade=_graded_elsewhere(nugget))
    after = StoredFigures.objects.get(conversation=conversation, annotator=annotator)
    assert (after.r, after.gfrc, after.inputs) == (before.r, before.gfrc, before.inputs)


@pytest.mark.django_db(transaction=True)
def test_inside_another_service_a_save_returns_no_score_and_the_outer_one_stores():
    conversation, annotator = build_list(3, username="nested")
    nugget = _first_nugget(conversation)
    grade = _graded_elsewhere(nugget)

    @edits.keeps_figures
    def outer():
        return edits.save_with_score(edits.update_entity, nugget.entity, actor=annotator,
                                     expected_version=nugget.entity.version, grade=grade)

    assert outer().score is None
    row = StoredFigures.objects.get(conversation=conversation, annotator=annotator)
    assert row.gfrc == score_conversation(conversation, annotator).GFRC


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
    [(c, a, r, gf, gfrc_value, gf_sets, inputs, lowest)] = figures.rows_from_judgments(campaign, [conversation.pk], [annotator.pk])
    assert (c, a) == (conversation.pk, annotator.pk)
    assert (saved.r, saved.gf, saved.gfrc, saved.gf_sets, saved.lowest_distr_sim) == (r, gf, gfrc_value, gf_sets, lowest)
    assert lowest  # both sets have scored turns here
    assert saved.inputs == inputs


@pytest.mark.django_db
def test_the_answer_reads_neither_the_attribute_sets_nor_the_judgments_of_the_score_it_is_handed():
    conversation, annotator = build_list(3, username="sets")
    nugget = _first_nugget(conversation)
    saved = edits.save_with_score(edits.update_entity, nugget.entity, actor=annotator,
                                  expected_version=nugget.entity.version, grade=_graded_elsewhere(nugget)).score

    def read(user, handed):
        with CaptureQueriesContext(connection) as queries:
            workbench = read_workbench(conversation, user, dismissed=set(), with_guidelines=False, stored=handed)
        return workbench, len(queries)

    fresh, fresh_queries = read(annotator, None)
    handed, handed_queries = read(annotator, saved)
    assert handed.score is saved.score and handed.attribute_sets is saved.attribute_sets
    assert fresh_queries - handed_queries == 4  # attribute sets, turns, nuggets, memberships
    assert (handed.score.R, handed.score.GFRC) == (fresh.score.R, fresh.score.GFRC)
    other = make_user("someone-else")
    assert read(other, saved)[0].score is not saved.score  # another annotator's score is never shown
