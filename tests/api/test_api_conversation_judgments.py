"""POST /api/conversations/<id>/judgments/: a whole conversation's judgments in one request
(an automatic judge's token), checked by the workspace's rules, all or nothing, answered with
the conversation's new scores."""

import json
import time

import pytest
from rest_framework.test import APIClient

from annotator.judgments import edits
from annotator.judgments.edits import whole
from annotator.models import AnnotatorProfile, Assignment, Entity, Grade, Nugget, TurnLabel
from annotator.scores.per_conversation import score_conversation
from tests.api.helpers import assigned_conversation, count_number_reads
from tests.factories import make_user


@pytest.fixture
def robot(demo):
    user = make_user("robot")
    AnnotatorProfile.mark(user, description="GPT-4o, prompt v1")
    return user


@pytest.fixture
def conversation(demo, robot):
    conversation = assigned_conversation(demo[2][0])
    Assignment.objects.create(conversation=conversation, annotator=robot)
    return conversation


@pytest.fixture
def api(robot):
    client = APIClient()
    client.force_authenticate(robot)
    return client


def url(conversation):
    return f"/api/conversations/{conversation.pk}/judgments/"


def anns_judgments(conversation, ann) -> list[dict]:
    """ann's nuggets of the conversation, as a submission: span, entity URL, grade, memberships."""
    nuggets = []
    for n in Nugget.objects.filter(annotator=ann, turn__conversation=conversation).select_related("turn", "entity__grade"):
        nuggets.append({
            "turn": str(n.turn), "start_word": n.start_word, "end_word": n.end_word, "entity": n.entity.key,
            "grade": n.entity.grade.label,
            "memberships": {m.attribute_set.name: m.vector for m in n.entity.memberships.select_related("attribute_set")},
        })
    return nuggets


def test_a_judge_sends_a_whole_conversation_and_gets_its_new_scores(api, conversation, robot, demo):
    ann = demo[2][0]
    nuggets = anns_judgments(conversation, ann)
    response = api.post(url(conversation), {"nuggets": nuggets, "labels": {"S1": "o", "S2": "x"}}, format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert (data["nuggets"], data["labels"]) == (len(nuggets), 2)
    assert data["scores"]["annotator"] == robot.pk
    assert data["scores"]["GFRC"] == pytest.approx(score_conversation(conversation, robot).GFRC)
    # the same judgments as ann's: the same scores
    assert data["scores"]["GFRC"] == pytest.approx(score_conversation(conversation, ann).GFRC)
    assert Nugget.objects.filter(annotator=robot).count() == len(nuggets)
    assert dict(TurnLabel.objects.filter(annotator=robot).values_list("turn__number", "label")) == {1: "o", 2: "x"}


def test_a_second_submission_names_the_version_it_replaces(api, conversation, robot, demo):
    nuggets = anns_judgments(conversation, demo[2][0])
    first = api.post(url(conversation), {"nuggets": nuggets, "labels": {"S1": "o"}}, format="json").json()
    assert first["version"] == api.get(url(conversation)).json()["version"] > 0
    response = api.post(url(conversation), {"nuggets": nuggets[:1], "version": first["version"]}, format="json")
    assert response.status_code == 200 and response.json()["version"] > first["version"]
    assert Nugget.objects.filter(annotator=robot).count() == 1
    assert not TurnLabel.objects.filter(annotator=robot).exists()


def test_vectors_may_be_written_as_annotators_type_them(api, conversation, robot, demo):
    nugget = {**anns_judgments(conversation, demo[2][0])[0], "memberships": {"ORIGIN": "(0,1/2,0,0,0,1/2,0,0)"}}
    assert api.post(url(conversation), {"nuggets": [nugget]}, format="json").status_code == 200
    assert Entity.objects.get(annotator=robot).memberships.get(attribute_set__name="ORIGIN").vector == [0, 0.5, 0, 0, 0, 0.5, 0, 0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"memberships": {"ORIGIN": [0.5, 0.6, 0, 0, 0, 0, 0, 0]}}, "nuggets[1]: the ORIGIN vector sums to"),
        ({"memberships": {"ORIGIN": [1, 0]}}, "nuggets[1]: the ORIGIN vector has 2 values, expected 8"),
        ({"memberships": {"GENDER": [1, 0]}}, "nuggets[1]: GENDER is not an attribute set of this topic"),
        ({"grade": "L7"}, "nuggets[1]: L7 is not a grade of this campaign"),
        ({"turn": "U1"}, "nuggets[1]: Nuggets are parts of system turns"),
        ({"turn": "S9"}, "nuggets[1]: no turn S9 in this conversation"),
        ({"end_word": 100000}, "nuggets[1]: Words"),
        ({"entity": "-"}, "nuggets[1]: '-' names no entity"),
    ],
)
def test_any_problem_refuses_the_whole_submission_naming_the_nugget(api, conversation, robot, demo, change, message):
    nuggets = anns_judgments(conversation, demo[2][0])
    version = api.post(url(conversation), {"nuggets": nuggets[:1]}, format="json").json()["version"]
    before = list(Nugget.objects.filter(annotator=robot).values_list("pk", flat=True))
    nuggets[1] = {**nuggets[1], **change}
    response = api.post(url(conversation), {"nuggets": nuggets, "version": version}, format="json")
    assert response.status_code == 400
    assert message in response.json()["detail"]
    assert list(Nugget.objects.filter(annotator=robot).values_list("pk", flat=True)) == before


def test_overlapping_nuggets_and_an_entity_graded_two_ways_are_refused(api, conversation, demo):
    nuggets = anns_judgments(conversation, demo[2][0])
    overlapping = {**nuggets[0], "start_word": nuggets[0]["end_word"], "end_word": nuggets[0]["end_word"] + 1, "entity": "Other"}
    response = api.post(url(conversation), {"nuggets": [nuggets[0], overlapping]}, format="json")
    assert response.status_code == 400 and "overlap" in response.json()["detail"]
    twice = {**nuggets[1], "entity": nuggets[0]["entity"], "grade": "L0" if nuggets[0]["grade"] != "L0" else "L1"}
    response = api.post(url(conversation), {"nuggets": [nuggets[0], twice]}, format="json")
    assert response.status_code == 400, (nuggets[:2], response.json())
    assert "judged differently by an earlier nugget" in response.json()["detail"]


def test_a_malformed_request_is_refused_by_shape(api, conversation):
    response = api.post(url(conversation), {"nuggets": [{"turn": "S1", "start_word": -1, "end_word": "x"}],
                                            "labels": {"S1": "maybe"}}, format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"nuggets", "labels"}


def test_only_an_annotator_assigned_to_the_conversation_may_send_its_judgments(api_as, demo, robot):
    other = assigned_conversation(demo[2][1])
    assert api_as("anonymous").post(url(other), {"nuggets": []}, format="json").status_code == 401
    client = APIClient()
    client.force_authenticate(robot)
    assert client.post(url(other), {"nuggets": []}, format="json").status_code == 404
    assert api_as("organiser").post(url(other), {"nuggets": []}, format="json").status_code == 404


def test_a_submission_never_replaces_changes_it_has_not_seen(api, conversation, robot, demo):
    nuggets = anns_judgments(conversation, demo[2][0])
    assert api.get(url(conversation)).json() == {"version": 0}  # not judged yet: no version needed
    version = api.post(url(conversation), {"nuggets": nuggets}, format="json").json()["version"]
    # the same account changes a grade in the workspace meanwhile (another tab, a person)
    nugget = Nugget.objects.filter(annotator=robot).select_related("entity").first()
    edits.update_entity(nugget.entity, actor=robot, expected_version=nugget.entity.version,
                              conversation=conversation, grade=Grade.objects.get(campaign=conversation.topic.campaign, level=0))
    response = api.post(url(conversation), {"nuggets": nuggets[:1], "version": version}, format="json")
    now = api.get(url(conversation)).json()["version"]
    assert response.status_code == 409 and response.json()["current"] == {"version": now} and now > version
    assert f"are at version {now}, not {version}" in response.json()["detail"]
    assert Nugget.objects.filter(annotator=robot).count() == len(nuggets)  # nothing was written
    # without a version, judgments already there are not replaced either
    response = api.post(url(conversation), {"nuggets": nuggets[:1]}, format="json")
    assert response.status_code == 409 and "send that version to replace them" in response.json()["detail"]
    # knowingly, with the version now: replaced
    response = api.post(url(conversation), {"nuggets": nuggets[:1], "version": now}, format="json")
    assert response.status_code == 200 and Nugget.objects.filter(annotator=robot).count() == 1


def test_a_number_beyond_any_vector_in_a_membership_is_a_400_naming_the_nugget(api, conversation, demo):
    nuggets = anns_judgments(conversation, demo[2][0])
    body = json.dumps({"nuggets": [{**nuggets[0], "memberships": {"RATINGS": [10**400, 0, 0, 0]}}]})
    response = api.post(url(conversation), body, content_type="application/json")
    assert response.status_code == 400
    assert "nuggets[0]: the RATINGS vector" in response.json()["detail"]
    assert "out of range" in response.json()["detail"]


@pytest.mark.parametrize("where", ["entity", "memberships"])
def test_a_lone_surrogate_anywhere_in_a_submission_is_a_400_with_its_json_path(api, conversation, robot, demo, where):
    nugget = anns_judgments(conversation, demo[2][0])[0]
    if where == "entity":
        nugget["entity"] = "Back \ud800 to the Future"
    else:
        nugget["memberships"] = {"RAT\ud800INGS": [1, 0, 0, 0]}
    body = json.dumps({"nuggets": [nugget]})  # ensure_ascii: written as the escape \ud800
    response = api.post(url(conversation), body, content_type="application/json")
    assert response.status_code == 400
    assert "surrogate" in response.json()["detail"] and "nuggets[0]" in response.json()["detail"]
    assert not Nugget.objects.filter(annotator=robot).exists()


def test_a_judge_that_imported_a_conversation_first_cannot_empty_its_gold(db):
    """The probe: a judge's file creates the conversation, then its token sends no nuggets."""
    from annotator.interchange.imports.conversations import import_files
    from annotator.models import Campaign, Conversation
    from tests.commands.helpers import EXAMPLE, load_fairweb

    load_fairweb()
    campaign = Campaign.objects.get(slug="fairweb1")
    robot, ann = make_user("robot"), make_user("ann")
    AnnotatorProfile.mark(robot)
    assert import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=robot).ok
    assert import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=ann).ok
    conversation = Conversation.objects.get()
    gold = score_conversation(conversation, ann).GFRC
    assert gold > 0
    client = APIClient()
    client.force_authenticate(robot)
    version = client.get(url(conversation)).json()["version"]
    assert client.post(url(conversation), {"version": version, "nuggets": []}, format="json").status_code == 200
    organiser = make_user("olga")
    campaign.organisers.add(organiser)
    client.force_authenticate(organiser)
    scores = client.get(f"/api/conversations/{conversation.pk}/scores/").json()
    assert scores["annotator"] == ann.pk and scores["GFRC"] == pytest.approx(gold)


def test_the_scores_of_a_conversation_only_a_judge_annotated_say_there_is_no_gold(db):
    from annotator.interchange.imports.conversations import import_files
    from annotator.models import Campaign, Conversation
    from tests.commands.helpers import EXAMPLE, load_fairweb

    load_fairweb()
    campaign = Campaign.objects.get(slug="fairweb1")
    robot, organiser = make_user("robot"), make_user("olga")
    AnnotatorProfile.mark(robot)
    campaign.organisers.add(organiser)
    assert import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=robot).ok
    client = APIClient()
    client.force_authenticate(organiser)
    scores = client.get(f"/api/conversations/{Conversation.objects.get().pk}/scores/").json()
    assert scores["annotator"] is None and scores["GFRC"] is None
    assert "no gold" in scores["detail"]


def test_an_entity_named_with_a_control_character_is_refused_naming_the_nugget(api, conversation, robot, demo):
    nugget = {**anns_judgments(conversation, demo[2][0])[0], "entity": "Back\x07 to the Future"}
    response = api.post(url(conversation), {"nuggets": [nugget]}, format="json")
    assert response.status_code == 400
    assert "nuggets[0]" in response.json()["detail"] and "control character" in response.json()["detail"]


def test_a_submission_reads_each_turn_once_whatever_the_number_of_nuggets(api, conversation, robot, monkeypatch):
    """Linear: 6,000 nuggets on a 100,000-word turn took 44 s when every nugget re-read its turn
    and queried every earlier span of it."""
    from annotator.models import Turn

    turn = conversation.turns.filter(role="S").order_by("position").first()
    Turn.objects.filter(pk=turn.pk).update(text=" ".join(f"w{i}" for i in range(2_000)))
    reads = []
    original = whole.tokenise
    monkeypatch.setattr(whole, "tokenise", lambda text: reads.append(len(text)) or original(text))
    nuggets = [{"turn": str(turn), "start_word": i, "end_word": i, "grade": "L0"} for i in range(0, 2_000, 2)]
    response = api.post(url(conversation), {"nuggets": nuggets}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["nuggets"] == 1_000
    assert len(reads) <= 2 * conversation.turns.count()  # the spans, then the scores of the answer


def test_a_submission_over_the_documented_cap_is_refused_before_anything_is_read(api, conversation, robot):
    nuggets = [{"turn": "S1", "start_word": i, "end_word": i} for i in range(edits.MAX_SUBMITTED_NUGGETS + 1)]
    response = api.post(url(conversation), {"nuggets": nuggets}, format="json")
    assert response.status_code == 400
    assert "2000" in str(response.json()["nuggets"])
    assert not Nugget.objects.filter(annotator=robot).exists()


def test_a_membership_vector_of_a_million_values_is_refused_before_its_numbers_are_read(api, conversation, demo, monkeypatch):
    nuggets = anns_judgments(conversation, demo[2][0])
    nuggets[0]["memberships"]["RATINGS"] = [0.0] * (10**6 - 1) + ["x"]
    body = json.dumps({"nuggets": nuggets})  # 5 MB, encoded outside the timing
    assert api.get(url(conversation)).status_code == 200  # the URLconf and views imported before the timing
    reads = count_number_reads(monkeypatch)
    start = time.perf_counter()
    response = api.post(url(conversation), body, content_type="application/json")
    elapsed = time.perf_counter() - start
    assert response.status_code == 400
    assert response.json()["detail"] == "nuggets[0]: the RATINGS vector has 1000000 values, expected 4."
    assert reads == [0]  # no number of the vector read (reading them took 7.3 s on a loaded machine)
    assert elapsed < 5, elapsed  # the length alone refuses it: not even the 'x' at its end is read
