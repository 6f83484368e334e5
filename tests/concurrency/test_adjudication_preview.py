"""An organiser previewing adjudication choices never holds up an annotator's save: in the
middle of the preview (while its scores are computed), another connection writes at once."""

from __future__ import annotations

import pytest
from django.db import connection

from annotator.evaluation import adjudication_effect
from annotator.judgments import adjudication, edits
from annotator.models import TurnLabel
from scoring import gfrc
from tests.concurrency.conftest import race
from tests.judgments.three_annotators import three_annotators

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_annotator_saves_while_a_preview_is_being_computed(monkeypatch):
    case = three_annotators()
    adjudicated = adjudication.adjudication(case.conversation, case.annotators)
    means = adjudication_effect.RunMeans.of_topic(case.conversation)
    turn = case.conversation.turns.get(position=2)
    saves = []
    score = gfrc.score

    def save_as_bob() -> None:
        with connection.cursor() as cursor:
            if connection.vendor == "sqlite":
                cursor.execute("PRAGMA busy_timeout = 300")  # a held write lock fails the save fast
            else:
                cursor.execute("SET lock_timeout = '300ms'")
        label = TurnLabel.objects.get(turn=turn, annotator=case.bob)
        saves.append(edits.set_turn_label(turn, annotator=case.bob, actor=case.bob, label="-",
                                          expected_version=label.version))

    def scoring_while_bob_saves(*args, **kwargs):
        if not saves:
            (outcome,) = race(save_as_bob, timeout=10)
            if outcome.error is not None:
                raise AssertionError(f"bob's save waited on the preview: {outcome.error!r}")
        return score(*args, **kwargs)

    monkeypatch.setattr(gfrc, "score", scoring_while_bob_saves)
    found = adjudication_effect.effects(adjudicated, means, judge=case.ann.pk)
    assert saves, "the preview scored something, and bob saved meanwhile"
    assert len(found) == len(adjudicated.disagreements)
    assert TurnLabel.objects.get(turn=turn, annotator=case.bob).label == "-"
