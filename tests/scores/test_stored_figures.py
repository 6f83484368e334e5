"""annotator.scores.stored: the stored figures equal a fresh computation after any sequence of
edits, imports, settings changes and undos, and a campaign page reads them in a fixed number
of queries."""

import math
import random
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.console.forms import CampaignSettingsForm
from annotator.interchange.imports.conversations import import_files
from annotator.judgments import edits
from annotator.models import AttributeSet, Conversation, Entity, Grade, Nugget, StoredFigures
from annotator.scores.per_conversation import campaign_settings
from annotator.scores.stored import invalidation as stored
from annotator.scores.campaign_tables import gf_column, score_table
from annotator.scores.per_conversation import gold_annotators, score_conversation
from tests.factories import make_campaign, make_user

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "M002-bing-trial1.txt"

pytestmark = pytest.mark.django_db


def fresh_figures(campaign) -> dict[int, dict]:
    """Each conversation scored now from its judge's judgments, through the workspace's path
    (score_conversation: another code path than the stored figures)."""
    conversations = list(Conversation.objects.filter(topic__campaign=campaign).select_related("topic__campaign"))
    judges = gold_annotators(conversations)
    result = {}
    for conversation in conversations:
        score = score_conversation(conversation, judges[conversation.pk])
        result[conversation.pk] = {"R": score.R, "GF": score.GF, "GFRC": score.GFRC,
                                   **{gf_column(k): v for k, v in score.GF_m.items()}}
        lowest: dict[str, float] = {}
        for turn in score.turns:
            for name, value in (turn.distr_sim.items() if turn.scored else ()):
                if not math.isnan(value):
                    lowest[name] = min(lowest.get(name, math.inf), value)
        result[conversation.pk]["lowest"] = (judges[conversation.pk], lowest)
    return result


def stored_lowest(conversation_id: int, judge: int | None) -> dict[str, float]:
    """The lowest DistrSim per attribute set stored for the judge's row (else the empty row)."""
    rows = dict(StoredFigures.objects.filter(conversation_id=conversation_id).values_list("annotator_id", "lowest_distr_sim"))
    return rows[judge] if judge in rows else rows[None]


def assert_stored_equal_fresh(campaign, step: str) -> None:
    campaign.refresh_from_db()
    table = score_table(campaign).set_index("conversation")
    fresh = fresh_figures(campaign)
    assert sorted(table.index) == sorted(fresh), step
    for conversation_id, figures in fresh.items():
        judge, lowest = figures.pop("lowest")
        got_lowest = stored_lowest(conversation_id, judge)
        assert got_lowest.keys() == lowest.keys(), (step, conversation_id, got_lowest, lowest)
        assert all(math.isclose(got_lowest[k], v, rel_tol=1e-9, abs_tol=1e-12) for k, v in lowest.items()), (
            step, conversation_id, got_lowest, lowest)
        for column, value in figures.items():
            got = table.loc[conversation_id, column]
            assert math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-12), (step, conversation_id, column, got, value)


def _settings(campaign, **changes):
    data = {f: getattr(campaign, f) for f in CampaignSettingsForm.Meta.fields}
    data.update(changes, version=campaign.version)
    if not data["duplicates_count_once"]:
        data.pop("duplicates_count_once")
    form = CampaignSettingsForm(data=data, instance=campaign)
    assert form.is_valid(), form.errors
    form.save_checked()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stored_figures_equal_a_fresh_computation_after_random_edits_imports_settings_and_undos(seed):
    rng = random.Random(seed)
    campaign = make_campaign()
    gold, other = make_user("gold"), make_user("other")
    for run in ("bing-trial1", "bard-trial1", "chat-trial1"):
        assert import_files(campaign, [(f"M002-{run}.txt", EXAMPLE.read_bytes())], annotator=gold).ok
    assert_stored_equal_fresh(campaign, "after the imports")
    conversations = list(Conversation.objects.filter(topic__campaign=campaign))
    grades = list(Grade.objects.filter(campaign=campaign))
    sets = list(AttributeSet.objects.filter(topic_type__campaign=campaign))
    for step in range(40):
        action = rng.choice(["create", "create", "delete", "grade", "membership", "undo", "settings", "gain",
                             "import", "gold", "target"])
        annotator = rng.choice([gold, other])
        conversation = rng.choice(conversations)
        try:
            if action == "create":
                turn = rng.choice(list(conversation.turns.filter(role="S")))
                words = len(turn.text.split())
                start = rng.randrange(words)
                edits.create_nugget(annotator=annotator, actor=annotator, turn=turn, start_word=start,
                                    end_word=min(words - 1, start + rng.randrange(4)))
            elif action == "delete":
                nugget = Nugget.objects.filter(annotator=annotator).order_by("?").first()
                if nugget:
                    edits.delete_nugget(nugget, actor=annotator, expected_version=nugget.version)
            elif action == "grade":
                entity = Entity.objects.filter(annotator=annotator).order_by("?").first()
                if entity:
                    edits.update_entity(entity, actor=annotator, expected_version=entity.version, grade=rng.choice(grades))
            elif action == "membership":
                entity = Entity.objects.filter(annotator=annotator).order_by("?").first()
                if entity:
                    attribute_set = rng.choice(sets)
                    weights = [rng.random() + 0.01 for _ in attribute_set.groups]
                    vector = None if rng.random() < 0.2 else [w / sum(weights) for w in weights]
                    edits.set_membership(entity, attribute_set, actor=annotator, expected_version=entity.version,
                                         vector=vector)
            elif action == "undo":
                edits.undo_last(conversation, annotator, actor=annotator)
            elif action == "settings":
                campaign.refresh_from_db()
                _settings(campaign, **rng.choice([
                    {"patience": rng.choice([20, 100, 1250])}, {"alpha": rng.choice([0.0, 0.3, 1.0])},
                    {"method": rng.choice(["independent", "cumulative"])},
                    {"empty_turns": rng.choice(["ignore", "uniform"])},
                    {"turn_weight": rng.choice(["one", "max_pw"])},
                    {"duplicates_count_once": rng.choice([True, False])},
                ]))
            elif action == "gain":
                grade = rng.choice(grades[1:])
                Grade.objects.filter(pk=grade.pk).update(gain=rng.choice([0.25, 0.5, 1.0]))
                stored.settings_changed(campaign, judgments=True)  # what the settings page does with its grades
            elif action == "target":
                attribute_set = rng.choice(sets)
                weights = [rng.random() + 0.01 for _ in attribute_set.groups]
                AttributeSet.objects.filter(pk=attribute_set.pk).update(
                    target=[w / sum(weights) for w in weights], weight=rng.choice([0.5, 1.0, 2.0]))
                stored.settings_changed(campaign, {"attribute_sets"})  # what the attribute set form does
            elif action == "import":
                run = rng.choice(["bing-trial1", "bard-trial1", "chat-trial1", "new-trial1"])
                # refused (nothing written) when it contradicts what `other` judged since: checked all the same
                import_files(campaign, [(f"M002-{run}.txt", EXAMPLE.read_bytes())], annotator=other, replace=True)
                conversations = list(Conversation.objects.filter(topic__campaign=campaign))
            elif action == "gold":
                Conversation.objects.filter(pk=conversation.pk).update(gold_annotator=annotator)
        except (edits.AnnotationRefused, edits.StaleEdit):
            pass
        assert_stored_equal_fresh(campaign, f"step {step}: {action}")


def test_the_score_table_reads_a_fixed_number_of_queries_however_many_conversations():
    campaign = make_campaign()
    gold = make_user("gold")
    assert import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold).ok
    with CaptureQueriesContext(connection) as small:
        score_table(campaign)
    for run in ("bard-trial1", "chat-trial1", "bing-trial2", "bard-trial2"):
        assert import_files(campaign, [(f"M002-{run}.txt", EXAMPLE.read_bytes())], annotator=gold).ok
    with CaptureQueriesContext(connection) as large:
        table = score_table(campaign)
    assert len(table) == 5
    assert len(large.captured_queries) == len(small.captured_queries) <= 4


def test_an_annotators_save_writes_their_figures_in_the_same_transaction():
    campaign = make_campaign()
    gold = make_user("gold")
    assert import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold).ok
    before = score_table(campaign)["R"].iloc[0]
    nugget = Nugget.objects.filter(annotator=gold).order_by("turn__position").first()
    edits.delete_nugget(nugget, actor=gold, expected_version=nugget.version)
    rows = StoredFigures.objects.filter(annotator=gold).values_list("r", flat=True)
    assert list(rows) == [score_table(campaign)["R"].iloc[0]]
    assert rows[0] < before


def test_alpha_alone_recombines_the_stored_r_and_gf():
    campaign = make_campaign()
    gold = make_user("gold")
    assert import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold).ok
    campaign.alpha = 0.2
    campaign.save()
    stored.settings_changed(campaign, {"alpha"})
    row = score_table(campaign).iloc[0]
    assert math.isclose(row["GFRC"], 0.2 * row["R"] + 0.8 * row["GF"])


def test_the_quick_settings_rescore_the_stored_inputs_without_writing():
    campaign = make_campaign()
    gold = make_user("gold")
    assert import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold).ok
    stored_r = list(StoredFigures.objects.values_list("r", flat=True))
    settings = campaign_settings(campaign)
    from dataclasses import replace

    other = score_table(campaign, settings=replace(settings, patience=100)).iloc[0]
    assert list(StoredFigures.objects.values_list("r", flat=True)) == stored_r
    campaign.patience = 100
    campaign.save()
    conversation = Conversation.objects.get()
    assert math.isclose(other["R"], score_conversation(conversation, gold).R)
