import pytest

from annotator.models import Conversation

from annotator.scores.per_conversation import score_conversation
from tests.api.helpers import assigned_conversation, unassigned_conversation


def test_an_annotator_gets_the_live_scores_of_their_own_judgments(api_as, demo):
    ann = demo[2][0]
    conversation = assigned_conversation(ann)
    data = api_as("annotator").get(f"/api/conversations/{conversation.pk}/scores/").json()
    expected = score_conversation(conversation, ann)
    assert data["annotator"] == ann.pk
    assert data["R"] == pytest.approx(expected.R) and data["GFRC"] == pytest.approx(expected.GFRC)
    assert set(data["GF_m"]) == {"RATINGS", "ORIGIN"}


def test_an_organiser_gets_the_gold_or_a_named_annotators_scores(api_as, demo):
    ann, bob = demo[2]
    conversation = next(c for c in Conversation.objects.all() if c.assignments.count() == 2)
    client = api_as("organiser")
    assert client.get(f"/api/conversations/{conversation.pk}/scores/").json()["annotator"] == ann.pk
    assert client.get(f"/api/conversations/{conversation.pk}/scores/?annotator={bob.pk}").json()["annotator"] == bob.pk


def test_an_annotator_cannot_ask_for_someone_elses_scores(api_as, demo):
    ann, bob = demo[2]
    conversation = assigned_conversation(ann)
    assert api_as("annotator").get(f"/api/conversations/{conversation.pk}/scores/?annotator={bob.pk}").status_code == 403
    other = unassigned_conversation(ann)
    assert api_as("annotator").get(f"/api/conversations/{other.pk}/scores/").status_code == 404
