import json
import time

from annotator.models import AttributeSet, Entity
from tests.api.helpers import count_number_reads


def mine(user):
    return Entity.objects.filter(annotator=user).order_by("pk").first()


def test_an_annotator_lists_only_their_own_entities(api_as, demo):
    ann = demo[2][0]
    ids = {e["id"] for e in api_as("annotator").get("/api/entities/?limit=1000").json()["results"]}
    assert ids == set(Entity.objects.filter(annotator=ann).values_list("pk", flat=True))


def test_an_entity_shows_its_grade_and_memberships(api_as, demo):
    entity = mine(demo[2][0])
    data = api_as("annotator").get(f"/api/entities/{entity.pk}/").json()
    assert data["grade"] == entity.grade.label and set(data["memberships"]) == {"RATINGS", "ORIGIN"}


def test_regrading_an_entity_goes_through_the_business_rules_and_bumps_its_version(api_as, demo):
    entity = mine(demo[2][0])
    response = api_as("annotator").patch(f"/api/entities/{entity.pk}/", {"version": entity.version, "grade": "L0"}, format="json")
    assert response.status_code == 200 and response.json()["grade"] == "L0"
    assert response.json()["version"] == entity.version + 1
    assert entity.topic.events.filter(kind="entity", action="update", object_id=entity.pk).exists()


def test_a_stale_entity_edit_gives_409_with_the_current_state(api_as, demo):
    entity = mine(demo[2][0])
    client = api_as("annotator")
    client.patch(f"/api/entities/{entity.pk}/", {"version": entity.version, "comment": "first"}, format="json")
    response = client.patch(f"/api/entities/{entity.pk}/", {"version": entity.version, "comment": "second"}, format="json")
    assert response.status_code == 409 and response.json()["current"]["comment"] == "first"


def test_an_unknown_grade_is_refused(api_as, demo):
    entity = mine(demo[2][0])
    response = api_as("annotator").patch(f"/api/entities/{entity.pk}/", {"version": entity.version, "grade": "L9"}, format="json")
    assert response.status_code == 400


def test_a_membership_can_be_given_as_evidence_through_the_helper(api_as, demo):
    entity = mine(demo[2][0])
    AttributeSet.objects.filter(name="RATINGS").update(helper={"bands": [100, 10000, 1000000]})
    response = api_as("annotator").post(
        f"/api/entities/{entity.pk}/membership/", {"version": entity.version, "attribute_set": "RATINGS", "evidence": "1.3M"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["memberships"]["RATINGS"] == {"vector": [0.0, 0.0, 0.0, 1.0], "evidence": "1.3M"}


def test_a_membership_vector_that_does_not_sum_to_one_is_refused(api_as, demo):
    entity = mine(demo[2][0])
    response = api_as("annotator").post(
        f"/api/entities/{entity.pk}/membership/", {"version": entity.version, "attribute_set": "RATINGS", "vector": [0.5, 0, 0, 0]}, format="json"
    )
    assert response.status_code == 400 and "sums to 0.5" in response.json()["detail"]


def test_a_membership_vector_of_a_million_values_is_refused_before_its_numbers_are_read(api_as, demo, monkeypatch):
    entity = mine(demo[2][0])
    client = api_as("annotator")
    body = json.dumps({"version": entity.version, "attribute_set": "RATINGS", "vector": [0.0] * (10**6 - 1) + ["x"]})
    assert client.get(f"/api/entities/{entity.pk}/").status_code == 200  # the URLconf imported before the timing
    reads = count_number_reads(monkeypatch)
    start = time.perf_counter()
    response = client.post(f"/api/entities/{entity.pk}/membership/", body, content_type="application/json")
    elapsed = time.perf_counter() - start
    assert response.status_code == 400 and response.json()["detail"] == "The RATINGS vector has 1000000 values, expected 4."
    assert reads == [0] and elapsed < 5, elapsed  # the length alone refuses it: not even the 'x' at its end is read


def test_a_membership_vector_may_be_written_as_annotators_type_it(api_as, demo):
    entity = mine(demo[2][0])
    response = api_as("annotator").post(
        f"/api/entities/{entity.pk}/membership/", {"version": entity.version, "attribute_set": "RATINGS", "vector": "(0,0,1/2,1/2)"}, format="json"
    )
    assert response.status_code == 200 and response.json()["memberships"]["RATINGS"]["vector"] == [0, 0, 0.5, 0.5]


def test_someone_elses_entity_is_not_found(api_as, demo):
    entity = mine(demo[2][1])
    client = api_as("annotator")
    assert client.get(f"/api/entities/{entity.pk}/").status_code == 404
    assert client.patch(f"/api/entities/{entity.pk}/", {"version": 1, "comment": "x"}, format="json").status_code == 404
    assert api_as("organiser").patch(f"/api/entities/{entity.pk}/", {"version": 1, "comment": "x"}, format="json").status_code == 404


def test_evidence_the_helper_cannot_read_is_refused_by_the_service_with_its_reason(api_as, demo):
    entity = mine(demo[2][0])
    response = api_as("annotator").post(
        f"/api/entities/{entity.pk}/membership/", {"version": entity.version, "attribute_set": "RATINGS", "evidence": "lots"}, format="json"
    )
    assert response.status_code == 400 and response.json()["detail"]
    entity.refresh_from_db()
    assert response.json()["detail"] and entity.version == mine(demo[2][0]).version
