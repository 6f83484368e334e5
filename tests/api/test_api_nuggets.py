import pytest

from annotator.models import Nugget
from annotator.scores.per_conversation import score_conversation
from tests.api.helpers import assigned_conversation, free_span, unassigned_conversation


def test_an_annotator_lists_only_their_own_nuggets_with_their_wc(api_as, demo):
    ann = demo[2][0]
    conversation = assigned_conversation(ann)
    data = api_as("annotator").get(f"/api/nuggets/?conversation={conversation.pk}").json()["results"]
    assert {n["id"] for n in data} == set(Nugget.objects.filter(annotator=ann, turn__conversation=conversation).values_list("pk", flat=True))
    score = score_conversation(conversation, ann)
    assert {n["id"]: n["wc"] for n in data} == {s.nugget.pk: s.wc for s in score.nuggets}


def test_creating_a_nugget_returns_its_wc_and_the_conversations_new_scores(api_as, demo):
    ann = demo[2][0]
    conversation = assigned_conversation(ann)
    turn, start, end = free_span(conversation, ann)
    response = api_as("annotator").post("/api/nuggets/", {"turn": turn.pk, "start_word": start, "end_word": end}, format="json")
    assert response.status_code == 201
    data = response.json()
    nugget = Nugget.objects.get(pk=data["nugget"]["id"])
    offset = sum(len(t.text.split()) for t in conversation.turns.filter(position__lt=turn.position))
    assert data["nugget"]["wc"] == offset + end + 1
    assert data["scores"]["GFRC"] == pytest.approx(score_conversation(conversation, ann).GFRC)
    assert nugget.annotator == ann and data["nugget"]["version"] == 1


def test_a_nugget_in_a_user_turn_is_refused_by_the_business_rules(api_as, demo):
    conversation = assigned_conversation(demo[2][0])
    user_turn = conversation.turns.get(position=1)
    response = api_as("annotator").post("/api/nuggets/", {"turn": user_turn.pk, "start_word": 0, "end_word": 0}, format="json")
    assert response.status_code == 400 and "user turn" in response.json()["detail"]


def test_an_overlapping_nugget_is_refused(api_as, demo):
    ann = demo[2][0]
    existing = Nugget.objects.filter(annotator=ann).first()
    response = api_as("annotator").post(
        "/api/nuggets/", {"turn": existing.turn_id, "start_word": existing.start_word, "end_word": existing.end_word}, format="json"
    )
    assert response.status_code == 400


def test_a_turn_of_a_conversation_not_assigned_is_not_found(api_as, demo):
    other = unassigned_conversation(demo[2][0])
    turn = other.turns.get(position=2)
    response = api_as("annotator").post("/api/nuggets/", {"turn": turn.pk, "start_word": 0, "end_word": 0}, format="json")
    assert response.status_code == 404
    assert api_as("organiser").post("/api/nuggets/", {"turn": turn.pk, "start_word": 0, "end_word": 0}, format="json").status_code == 404


def test_moving_a_nugget_needs_the_current_version(api_as, demo):
    ann = demo[2][0]
    nugget = Nugget.objects.filter(annotator=ann).first()
    client = api_as("annotator")
    ok = client.patch(f"/api/nuggets/{nugget.pk}/", {"version": 1, "end_word": nugget.end_word}, format="json")
    assert ok.status_code == 200 and ok.json()["nugget"]["version"] == 2 and "scores" in ok.json()
    stale = client.patch(f"/api/nuggets/{nugget.pk}/", {"version": 1, "end_word": nugget.end_word}, format="json")
    assert stale.status_code == 409 and stale.json()["current"]["version"] == 2


def test_deleting_a_nugget_with_its_version_answers_the_new_scores(api_as, demo):
    ann = demo[2][0]
    nugget = Nugget.objects.filter(annotator=ann).first()
    client = api_as("annotator")
    assert client.delete(f"/api/nuggets/{nugget.pk}/?version=7").status_code == 409
    assert client.delete(f"/api/nuggets/{nugget.pk}/").status_code == 400
    response = client.delete(f"/api/nuggets/{nugget.pk}/?version=1")
    assert response.status_code == 200 and "GFRC" in response.json()
    assert not Nugget.objects.filter(pk=nugget.pk).exists()


def test_someone_elses_nugget_is_not_found(api_as, demo):
    bobs = Nugget.objects.filter(annotator=demo[2][1]).first()
    client = api_as("annotator")
    assert client.get(f"/api/nuggets/{bobs.pk}/").status_code == 404
    assert client.patch(f"/api/nuggets/{bobs.pk}/", {"version": 1}, format="json").status_code == 404
    assert client.delete(f"/api/nuggets/{bobs.pk}/?version=1").status_code == 404
    assert api_as("anonymous").get("/api/nuggets/").status_code == 401
