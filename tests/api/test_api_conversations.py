from annotator.models import Conversation
from tests.api.helpers import assigned_conversation, unassigned_conversation


def test_an_annotator_lists_only_the_conversations_assigned_to_them(api_as, demo):
    ann = demo[2][0]
    ids = [c["id"] for c in api_as("annotator").get("/api/conversations/").json()["results"]]
    assert sorted(ids) == sorted(Conversation.objects.filter(assignments__annotator=ann).values_list("pk", flat=True))


def test_an_organiser_lists_every_conversation_of_their_campaigns(api_as):
    assert api_as("organiser").get("/api/conversations/").json()["count"] == 6
    assert api_as("other organiser").get("/api/conversations/").json()["count"] == 0


def test_a_conversation_comes_with_its_turns_in_order(api_as, demo):
    conversation = assigned_conversation(demo[2][0])
    data = api_as("annotator").get(f"/api/conversations/{conversation.pk}/").json()
    assert [t["role"] + str(t["number"]) for t in data["turns"]] == ["U1", "S1", "U2", "S2"]
    assert data["turns"][0]["words"] > 0 and data["topic"] == conversation.topic.code


def test_someone_elses_conversation_is_not_found(api_as, demo):
    other = unassigned_conversation(demo[2][0])
    assert api_as("annotator").get(f"/api/conversations/{other.pk}/").status_code == 404
    assert api_as("other organiser").get(f"/api/conversations/{other.pk}/").status_code == 404


def test_anonymous_clients_get_401(api_as):
    assert api_as("anonymous").get("/api/conversations/").status_code == 401
