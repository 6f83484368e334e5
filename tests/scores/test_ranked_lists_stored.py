"""Ranked lists scored from their arrays, figures stored per topic and re-scored only where
what they depend on changed: an edited judgment, a re-imported run, a changed target."""

from __future__ import annotations

import pandas as pd
import pytest

from annotator.interchange.imports.ntcireval import import_ntcireval
from annotator.interchange.imports.ranked_runs import import_runs
from annotator.judgments.edits import set_membership, update_entity
from annotator.models import AttributeSet, Campaign, Entity, Grade, RankedListFigures, Topic
from annotator.scores import ranked_lists
from annotator.scores.ranked_lists import compute_figures, score_ranked_lists, score_ranked_lists_at
from scoring.reference.gfr import list_scores
from tests.commands.pilot import load_pilot

pytestmark = pytest.mark.django_db


@pytest.fixture
def pilot() -> Campaign:
    load_pilot()
    return Campaign.objects.get(slug="fairweb1pilot")


@pytest.fixture
def scored_topics(monkeypatch) -> list[set[int]]:
    """The topic ids each computation of figures was asked for."""
    calls: list[set[int]] = []
    real = ranked_lists.compute_figures

    def spy(campaign, topic_ids, *args, **kwargs):
        calls.append(set(topic_ids))
        return real(campaign, topic_ids, *args, **kwargs)

    monkeypatch.setattr(ranked_lists, "compute_figures", spy)
    return calls


def _fresh(campaign: Campaign, cutoff: int = 20, as_ntcireval: bool = False) -> pd.DataFrame:
    """The figures computed from scratch (nothing stored read)."""
    RankedListFigures.objects.all().delete()
    return score_ranked_lists(campaign, cutoff, as_ntcireval=as_ntcireval).figures


def test_figures_are_stored_once_and_read_back_without_scoring_again(pilot, scored_topics):
    first = score_ranked_lists(pilot).figures
    assert len(scored_topics) == 1 and len(scored_topics[0]) == 4
    again = score_ranked_lists(pilot).figures
    assert len(scored_topics) == 1
    pd.testing.assert_frame_equal(first, again)
    assert RankedListFigures.objects.filter(cutoff=20).count() == 4


def test_an_edited_grade_re_scores_its_topic_only_and_gives_the_figures_scoring_from_scratch_gives(pilot, scored_topics):
    score_ranked_lists(pilot)
    entity = Entity.objects.filter(topic__code="P003", grade__label="L1").order_by("pk").first()
    update_entity(entity, actor=None, expected_version=entity.version, grade=Grade.objects.get(campaign=pilot, label="L2"))
    after = score_ranked_lists(pilot).figures
    assert scored_topics[1] == {entity.topic_id}
    pd.testing.assert_frame_equal(after, _fresh(pilot))


def test_an_edited_membership_re_scores_its_topic_only(pilot, scored_topics):
    before = score_ranked_lists(pilot).figures
    entity = Entity.objects.filter(topic__code="P001", grade__label="L2").order_by("pk").first()
    gender = AttributeSet.objects.get(topic_type__code="R", name="GENDER")
    current = entity.memberships.get(attribute_set=gender).vector
    vector = [0.0] * len(current)
    vector[(current.index(max(current)) + 1) % len(current)] = 1.0
    set_membership(entity, gender, actor=None, expected_version=entity.version, vector=vector)
    after = score_ranked_lists(pilot).figures
    assert scored_topics[1] == {entity.topic_id}
    changed = after.merge(before, on=["run", "topic", "attribute_set", "measure"]).query("value_x != value_y")
    assert set(changed["topic"]) == {"P001"} and "GENDER" in set(changed["attribute_set"])
    pd.testing.assert_frame_equal(after, _fresh(pilot))


def test_a_re_imported_run_re_scores_the_topics_it_has_lists_for(pilot, scored_topics, tmp_path):
    score_ranked_lists(pilot)
    import_runs(pilot, [("again", b"P002 Q0 nothing-judged 1 1 Anserini-qld\n")])
    figures = score_ranked_lists(pilot).figures
    p002 = Topic.objects.get(campaign=pilot, code="P002").pk
    assert p002 in scored_topics[1]  # the run's old lists (P001, P003, P004) are gone: those topics too
    assert set(figures.loc[figures["run"] == "Anserini-qld", "value"]) == {0.0}
    pd.testing.assert_frame_equal(figures, _fresh(pilot))


def test_a_changed_target_re_scores_the_topics_of_its_type_only(pilot, scored_topics):
    score_ranked_lists(pilot)
    followers = AttributeSet.objects.get(topic_type__code="T", name="FOLLOWERS")
    followers.target = [0.4, 0.3, 0.2, 0.1]
    followers.save()
    figures = score_ranked_lists(pilot).figures
    assert scored_topics[1] == {Topic.objects.get(campaign=pilot, code="P003").pk}
    pd.testing.assert_frame_equal(figures, _fresh(pilot))


def test_a_document_judged_after_its_run_was_imported_counts_with_its_judgment(pilot, tmp_path):
    import_runs(pilot, [("late", b"P003 Q0 late-page 1 2 late\nP003 Q0 other 2 1 late\n")])
    assert set(score_ranked_lists(pilot).figures.query("run == 'late'")["value"]) == {0.0}
    result = import_ntcireval(pilot, [("late.qrels", b"P003 late-page L2\n"), ("late.T-FOLLOWERS.gmemb", b"P003 late-page 1 0 0 0\n")])
    assert not result.errors
    values = score_ranked_lists(pilot).figures.query("run == 'late' and topic == 'P003'").set_index(["attribute_set", "measure"])["value"]
    twin = list_scores([3.0, 0.0], {"FOLLOWERS": [[1, 0, 0, 0], [0.25] * 4]},
                       {"FOLLOWERS": AttributeSet.objects.get(name="FOLLOWERS").target}, {"FOLLOWERS": False}, 3.0, 20)
    assert values[("-", "ERR")] == pytest.approx(twin["ERR"], abs=1e-15)
    assert values[("FOLLOWERS", "GF-RNOD")] == pytest.approx(twin["GF-RNOD:FOLLOWERS"], abs=1e-15)


def test_several_cutoffs_in_one_pass_give_what_each_cutoff_gives_alone(pilot):
    together = score_ranked_lists_at(pilot, [1, 5, 20, 1000])
    for cutoff in (1, 5, 20, 1000):
        RankedListFigures.objects.all().delete()
        alone = score_ranked_lists(pilot, cutoff)
        pd.testing.assert_frame_equal(together[cutoff].figures, alone.figures, check_exact=False, rtol=0, atol=1e-15)
        pd.testing.assert_frame_equal(together[cutoff].table, alone.table, check_exact=False, rtol=0, atol=1e-15)


def test_as_ntcireval_scores_unjudged_documents_with_six_decimal_uniform_vectors(pilot):
    # P001 (R: GENDER, 3 nominal groups): a relevant page, then an unjudged one
    import_runs(pilot, [("u", b"P001 Q0 unjudged-page 1 3 u\n" + b"".join(
        f"P001 Q0 {key} {rank} 1 u\n".encode() for rank, key in enumerate(
            Entity.objects.filter(topic__code="P001", grade__label__in=["L1", "L2"]).order_by("key").values_list("key", flat=True)[:3], 2)))])
    exact = score_ranked_lists(pilot).figures.query("run == 'u' and topic == 'P001'").set_index(["attribute_set", "measure"])["value"]
    six = score_ranked_lists(pilot, as_ntcireval=True).figures.query("run == 'u' and topic == 'P001'").set_index(["attribute_set", "measure"])["value"]
    assert exact[("GENDER", "GF-JSD")] != six[("GENDER", "GF-JSD")]
    assert exact[("-", "ERR")] == six[("-", "ERR")]
    # the twin fed the vectors as GFlabel writes them
    entities = {e.key: e for e in Entity.objects.filter(topic__code="P001").prefetch_related("memberships__attribute_set")}
    docs = ["unjudged-page", *sorted(k for k, e in entities.items() if e.grade and e.grade.label in ("L1", "L2"))[:3]]
    gains = {"L0": 0.0, "L1": 1.0, "L2": 3.0}
    sets = {s.name: s for s in AttributeSet.objects.filter(topic_type__code="R")}

    def vector(doc, name):
        m = [m for m in entities[doc].memberships.all() if m.attribute_set.name == name] if doc in entities else []
        return m[0].vector if m else [float(f"{1 / sets[name].size:f}")] * sets[name].size

    twin = list_scores([gains[entities[d].grade.label] if d in entities else 0.0 for d in docs],
                       {name: [vector(d, name) for d in docs] for name in sets}, {n: s.target for n, s in sets.items()},
                       {n: s.kind == "nominal" for n, s in sets.items()}, 3.0, 20)
    for (attribute_set, measure), value in six.items():
        key = measure if attribute_set == "-" else f"{measure}:{attribute_set}"
        assert value == pytest.approx(twin[key], abs=1e-12), key


def test_scoring_from_one_annotators_judgments_is_computed_not_stored(pilot):
    from django.contrib.auth import get_user_model

    judge = get_user_model().objects.get(username=Entity.objects.values_list("annotator__username", flat=True).first())
    figures = compute_figures(pilot, set(Topic.objects.filter(campaign=pilot).values_list("pk", flat=True)), [20], judge=judge)
    assert figures and not RankedListFigures.objects.exists()
    assert not score_ranked_lists(pilot, judge=judge).figures.empty and not RankedListFigures.objects.exists()
