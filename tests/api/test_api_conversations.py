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


def test_a_linear_conversation_s_turns_each_follow_the_one_before(api_as, demo):
    conversation = assigned_conversation(demo[2][0])
    data = api_as("annotator").get(f"/api/conversations/{conversation.pk}/").json()
    ids = [t["id"] for t in data["turns"]]
    assert data["is_tree"] is False
    assert [t["parent"] for t in data["turns"]] == [None, *ids[:-1]]


def test_a_conversation_that_branches_gives_each_turn_the_turn_it_follows(api_as, demo):
    import json

    from annotator.interchange.imports.conversations import import_files
    from tests.scores.test_conversation_trees_scored import tree_line

    organiser = demo[1]
    campaign = Conversation.objects.filter(topic__campaign__organisers=organiser).first().topic.campaign
    line = dict(tree_line(), topic=Conversation.objects.filter(topic__campaign=campaign).first().topic.code,
                run="tree-trial1", nuggets=[])
    result = import_files(campaign, [("tree.jsonl", (json.dumps(line) + "\n").encode())], annotator=organiser)
    assert not result.errors, result.errors
    conversation = Conversation.objects.get(topic__campaign=campaign, run__name="tree-trial1")
    data = api_as("organiser").get(f"/api/conversations/{conversation.pk}/").json()
    assert data["is_tree"] is True
    by_key = {t["key"]: t for t in data["turns"]}
    parents = {t["key"]: next((k for k, other in by_key.items() if other["id"] == t["parent"]), None) for t in data["turns"]}
    assert parents == {"u1": None, "a": "u1", "b": "u1", "u2a": "a", "s2a": "u2a", "u2b": "b", "s2b": "u2b"}
    assert (by_key["a"]["p"], by_key["b"]["p"], by_key["s2a"]["p"]) == (0.7, 0.3, None)
