"""load_campaign: the shipped FairWeb-1 campaign file, idempotent loads, problems by JSON path."""

from __future__ import annotations

import json

import pytest

from annotator.models import AttributeSet, Campaign, Grade, Run, Topic, TopicType
from tests.factories import FAIRWEB_ORIGIN_TARGET, ORIGIN_REGIONS

from .helpers import CAMPAIGN_FILE, refused, row_counts, run, write

pytestmark = pytest.mark.django_db


def test_the_shipped_campaign_file_loads_the_papers_settings():
    out, _ = run("load_campaign", str(CAMPAIGN_FILE))
    assert out.strip() == "Campaign fairweb1 created: 3 grades, 4 topic types, 6 attribute sets, 1 topics, 2 runs."
    c = Campaign.objects.get(slug="fairweb1")
    assert (c.patience, c.alpha, c.method, c.empty_turns, c.turn_weight, c.duplicates_count_once) == (
        1250, 0.5, "independent", "ignore", "one", True)
    assert {g.label: (g.level, g.gain) for g in Grade.objects.filter(campaign=c)} == {"L0": (0, 0.0), "L1": (1, 0.5), "L2": (2, 1.0)}
    assert sorted(TopicType.objects.filter(campaign=c).values_list("code", flat=True)) == ["M", "R", "T", "Y"]
    sets = {(a.topic_type.code, a.name): a for a in AttributeSet.objects.filter(topic_type__campaign=c)}
    assert sorted(sets) == [("M", "ORIGIN"), ("M", "RATINGS"), ("R", "GENDER"), ("R", "HINDEX"), ("T", "FOLLOWERS"), ("Y", "SUBSCS")]
    ratings, origin = sets[("M", "RATINGS")], sets[("M", "ORIGIN")]
    assert (ratings.kind, ratings.divergence, ratings.target, ratings.helper) == ("ordinal", "rnod", [0.25] * 4, {"bands": [100, 10000, 1000000]})
    assert (origin.kind, origin.divergence, origin.groups, origin.target) == ("nominal", "jsd", ORIGIN_REGIONS, FAIRWEB_ORIGIN_TARGET)
    assert (sets[("R", "HINDEX")].helper, sets[("R", "GENDER")].kind, len(sets[("R", "GENDER")].groups)) == ({"bands": [10, 30, 50]}, "nominal", 3)
    assert all(sets[k].divergence == "rnod" and sets[k].size == 4 for k in [("Y", "SUBSCS"), ("T", "FOLLOWERS")])
    topic = Topic.objects.get(campaign=c, code="M002")
    assert topic.topic_type.code == "M" and topic.description == "sci-fi movies that feature time travel, listed in IMDb"
    assert set(Run.objects.filter(campaign=c).values_list("name", flat=True)) == {"bing-trial1", "bard-trial1"}


def test_the_shipped_origin_mapping_places_the_example_countries_and_most_of_the_world():
    mapping = json.loads(CAMPAIGN_FILE.read_text())["topic_types"][0]["attribute_sets"][1]["helper"]["mapping"]
    assert {k: mapping[k] for k in ["United States", "United Kingdom", "Canada", "China", "Australia"]} == {
        "United States": "America", "United Kingdom": "Europe", "Canada": "America", "China": "Asia", "Australia": "Oceania"}
    assert set(r for v in mapping.values() for r in ([v] if isinstance(v, str) else v)) == set(ORIGIN_REGIONS)
    assert len(mapping) > 250


def test_the_shipped_helpers_turn_the_examples_evidence_into_its_vectors():
    from annotator.rules.evidence import vector_from_evidence

    run("load_campaign", str(CAMPAIGN_FILE))
    ratings = AttributeSet.objects.get(name="RATINGS")
    origin = AttributeSet.objects.get(name="ORIGIN")
    assert vector_from_evidence(ratings.helper, ratings.groups, "1.3M") == (0, 0, 0, 1)
    assert vector_from_evidence(ratings.helper, ratings.groups, "43K") == (0, 0, 1, 0)
    assert vector_from_evidence(origin.helper, origin.groups, "United States,United Kingdom,Canada") == (0, 2 / 3, 0, 0, 0, 1 / 3, 0, 0)
    assert vector_from_evidence(origin.helper, origin.groups, "Australia,United States") == (0, 0.5, 0, 0, 0, 0, 0, 0.5)


def test_loading_twice_changes_nothing():
    run("load_campaign", str(CAMPAIGN_FILE))
    before = row_counts()
    versions = list(AttributeSet.objects.values_list("version", flat=True)) + [Campaign.objects.get().version]
    out, _ = run("load_campaign", str(CAMPAIGN_FILE))
    assert out.strip() == "Campaign fairweb1 unchanged."
    assert row_counts() == before
    assert list(AttributeSet.objects.values_list("version", flat=True)) + [Campaign.objects.get().version] == versions


def test_a_changed_file_updates_the_campaign_in_place(tmp_path):
    run("load_campaign", str(CAMPAIGN_FILE))
    data = json.loads(CAMPAIGN_FILE.read_text())
    data["settings"]["alpha"] = 0.7
    data["topic_types"][0]["attribute_sets"][0]["divergence"] = "nmd"
    data["topics"].append({"id": "M003", "description": "x"})
    out, _ = run("load_campaign", write(tmp_path, "c.json", json.dumps(data)), verbosity=2)
    assert "Campaign fairweb1 updated: 3 change(s)." in out
    assert Campaign.objects.get().alpha == 0.7
    ratings = AttributeSet.objects.get(name="RATINGS")
    assert (ratings.divergence, ratings.version) == ("nmd", 2)
    assert Topic.objects.filter(code="M003").exists()


def test_every_problem_is_listed_with_its_json_path_and_nothing_is_loaded(tmp_path):
    data = json.loads(CAMPAIGN_FILE.read_text())
    data["settings"]["alpha"] = 2
    data["settings"]["method"] = "sometimes"
    origin = data["topic_types"][0]["attribute_sets"][1]
    origin["target"] = origin["target"][:7]
    origin["helper"]["mapping"]["Atlantis"] = "Lemuria"
    data["topic_types"][1]["attribute_sets"][1]["divergence"] = "rnod"
    data["topic_types"][0]["attribute_sets"][0]["helper"]["bands"] = [100, 10000]
    data["topics"].append({"id": "Q001"})
    data["colour"] = "blue"
    path = write(tmp_path, "bad.json", json.dumps(data))
    message, err = refused("load_campaign", path)
    print(err)
    assert message == "8 problem(s): nothing was loaded"
    assert err.splitlines() == [
        f"{path}: colour: unknown field (expected one of: description, name, organisers, runs, settings, slug, topic_types, topics)",
        f"{path}: settings.alpha: must be between 0 and 1",
        f"{path}: settings.method: must be one of: independent, cumulative",
        f"{path}: topic_types[0].attribute_sets[0].helper.bands: 4 groups need 3 band limits, found 2",
        f"{path}: topic_types[0].attribute_sets[1].helper.mapping.Atlantis: must be a group label (or a list of them): "
        "Africa, America, Antarctica, Asia, Caribbean, Europe, Middle East, Oceania",
        f"{path}: topic_types[0].attribute_sets[1].target: the target has 7 values, expected 8",
        f"{path}: topic_types[1].attribute_sets[1].divergence: nominal groups have no order: use jsd",
        f"{path}: topics[1].id: no topic type for Q001: its first letter must be a topic type code (M, R, T, Y), or name its \"type\"",
    ]
    assert row_counts()["Campaign"] == 0


def test_invalid_json_is_reported_with_its_line(tmp_path):
    path = write(tmp_path, "broken.json", '{\n  "slug": "x",\n  oops\n}')
    message, err = refused("load_campaign", path)
    assert err.strip() == f"{path}: line 3 column 3: invalid JSON: Expecting property name enclosed in double quotes"


def test_the_group_count_of_a_judged_attribute_set_cannot_change(tmp_path):
    from django.contrib.auth import get_user_model

    from annotator.models import Entity, Membership

    run("load_campaign", str(CAMPAIGN_FILE))
    user = get_user_model().objects.create_user("gold")
    entity = Entity.objects.create(topic=Topic.objects.get(code="M002"), annotator=user, key="name:x")
    Membership.objects.create(entity=entity, attribute_set=AttributeSet.objects.get(name="RATINGS"), vector=[0, 0, 0, 1])
    data = json.loads(CAMPAIGN_FILE.read_text())
    ratings = data["topic_types"][0]["attribute_sets"][0]
    ratings["groups"] = ["low", "mid", "high"]
    ratings["helper"] = {"bands": [100, 1000000]}
    data["settings"]["alpha"] = 0.9
    before = row_counts()
    _, err = refused("load_campaign", write(tmp_path, "c.json", json.dumps(data)))
    assert "topic_types[0].attribute_sets[0].groups: RATINGS has 4 groups and memberships judged against them: " \
           "its number of groups cannot change to 3" in err
    assert row_counts() == before and Campaign.objects.get().alpha == 0.5


def test_organisers_must_exist_and_are_added(tmp_path):
    from django.contrib.auth import get_user_model

    data = json.loads(CAMPAIGN_FILE.read_text())
    data["organisers"] = ["sakai"]
    path = write(tmp_path, "c.json", json.dumps(data))
    _, err = refused("load_campaign", path)
    assert err.strip() == f"{path}: organisers[0]: no user named 'sakai'"
    sakai = get_user_model().objects.create_user("sakai")
    run("load_campaign", path)
    assert list(Campaign.objects.get().organisers.all()) == [sakai]
