"""The set-up rules have one home each (annotator.rules.attribute_sets, annotator.rules.campaign_settings):
the same bad input, through every entrance, is refused, writes nothing, and is told in the same
words. The entrances: the model's full_clean, the console's pages (as an organiser, with the
test client), the campaign file (load_campaign) and, for settings, the API (PATCH
/api/campaigns/<slug>/; it carries no attribute sets). The campaign file writes the rule's phrase
after its JSON path; the others say it as a sentence beside their field, led by where within the
field when the rule's field is finer (a mapping's value).

A second home that drifts fails here: the console once accepted band limits on a nominal set and
mapping values differing only in letter case, which the campaign file refused.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotator.interchange.imports.campaign_file import CampaignFileError, load_campaign
from annotator.models import AttributeSet, Campaign, Grade
from annotator.rules.attribute_sets import DIVERGENCES, KINDS
from annotator.rules.campaign_settings import CHOICES
from tests.console.helpers import settings_post
from tests.factories import make_campaign, make_user

pytestmark = pytest.mark.django_db

SET = "topic_types[0].attribute_sets[0]"


def sentence(message: str, where: str = "") -> str:
    """The campaign file's phrase as a form, the model and the API say it."""
    said = f"{where}: {message}" if where else message[0].upper() + message[1:]
    return said + "."


@pytest.fixture
def campaign():
    return make_campaign("fw", organiser=make_user("org"))


@pytest.fixture
def organiser(campaign):
    client = Client()
    client.force_login(campaign.organisers.get())
    return client


@pytest.fixture
def api(campaign):
    client = APIClient()
    client.force_authenticate(campaign.organisers.get())
    return client


# -- attribute sets ---------------------------------------------------------------------------
# Each: the set as a campaign file gives it; the rule's field and message; the field the console
# and the model say it beside, and where within that field.

ATTRIBUTE_SETS = {
    "band limits on a nominal set": (
        {"kind": "nominal", "groups": ["north", "south"], "helper": {"bands": [10]}},
        "helper.bands", "bands need ordinal groups", ("bands_text", ""), ("helper", "bands")),
    "mapping values differing only in letter case": (
        {"kind": "nominal", "groups": ["Asia", "Europe"], "helper": {"mapping": {"Japan": "Asia", "japan": "Europe"}}},
        "helper.mapping.japan", "the same value as 'Japan' (values match case-insensitively)",
        ("mapping_text", "japan"), ("helper", "mapping.japan")),
    "mapping values differing only in surrounding spaces": (
        {"kind": "nominal", "groups": ["Asia", "Europe"], "helper": {"mapping": {"Japan": "Asia", "Japan ": "Asia"}}},
        "helper.mapping.Japan ", "the same value as 'Japan' (values match case-insensitively)",
        None, ("helper", "mapping.Japan ")),  # the console's lines drop a value's spaces: it reads one value
    "a mapping to a group the set lacks": (
        {"kind": "nominal", "groups": ["Asia", "Europe"], "helper": {"mapping": {"Japan": "Narnia"}}},
        "helper.mapping.Japan", "must be a group label (or a list of them): Asia, Europe",
        ("mapping_text", "Japan"), ("helper", "mapping.Japan")),
    "a target that does not sum to 1": (
        {"kind": "ordinal", "groups": ["low", "high"], "target": [0.3, 0.3]},
        "target", "the target sums to 0.6, not 1", ("target_text", ""), ("target", "")),
    "a target of the wrong length": (
        {"kind": "ordinal", "groups": ["low", "mid", "high"], "target": [0.5, 0.5]},
        "target", "the target has 2 values, expected 3", ("target_text", ""), ("target", "")),
    "a wrong number of band limits": (
        {"kind": "ordinal", "groups": ["a", "b", "c", "d"], "helper": {"bands": [100, 1000]}},
        "helper.bands", "4 groups need 3 band limits, found 2", ("bands_text", ""), ("helper", "bands")),
    "band limits that do not go up": (
        {"kind": "ordinal", "groups": ["a", "b", "c"], "helper": {"bands": [100, 50]}},
        "helper.bands", "must be strictly increasing", ("bands_text", ""), ("helper", "bands")),
    "a group repeated": (
        {"kind": "ordinal", "groups": ["low", "low"]},
        "groups", "group labels must be distinct", ("groups_text", ""), ("groups", "")),
    "an order on nominal groups": (
        {"kind": "nominal", "groups": ["a", "b"], "divergence": "rnod"},
        "divergence", "nominal groups have no order: use jsd", ("divergence", ""), ("divergence", "")),
    "a negative weight": (
        {"kind": "ordinal", "groups": ["a", "b"], "weight": -1},
        "weight", "must be at least 0", ("weight", ""), ("weight", "")),
    "a name the paper format reserves": (
        {"name": "SPAN", "kind": "ordinal", "groups": ["a", "b"]},
        "name", "SPAN is reserved by the paper format (#SPAN:, #ENTITY:, #COMMENT:)", ("name", ""), ("name", "")),
}


def described(given: dict) -> dict:
    """The whole set, defaults filled in as the console's form and the model need them."""
    groups = given["groups"]
    return {"name": "NEWSET", "divergence": "jsd" if given["kind"] == "nominal" else "rnod", "weight": 1,
            "target": [1 / len(groups)] * len(groups), "helper": {}, **given}


def console_post(given: dict) -> dict:
    a = described(given)
    helper = a["helper"]
    data = {"name": a["name"], "kind": a["kind"], "divergence": a["divergence"], "weight": a["weight"], "position": 5,
            "groups_text": "\n".join(a["groups"]), "target_text": "(" + ", ".join(str(p) for p in a["target"]) + ")",
            "helper_kind": "none", "bands_text": "", "mapping_text": ""}
    if "bands" in helper:
        data.update(helper_kind="bands", bands_text=", ".join(str(b) for b in helper["bands"]))
    if "mapping" in helper:
        data.update(helper_kind="mapping", mapping_text="\n".join(f"{value} = {group}" for value, group in helper["mapping"].items()))
    return data


@pytest.mark.parametrize("case", ATTRIBUTE_SETS)
def test_the_campaign_file_refuses_a_bad_attribute_set_at_its_json_path_and_loads_nothing(case):
    given, field, message, _console, _model = ATTRIBUTE_SETS[case]
    data = {"slug": "from-file", "topic_types": [{"code": "M", "attribute_sets": [{"name": "NEWSET", **given}]}]}
    with pytest.raises(CampaignFileError) as refused:
        load_campaign(data, source="c.json")
    assert [str(p) for p in refused.value.problems] == [f"c.json: {SET}.{field}: {message}"]
    assert not Campaign.objects.filter(slug="from-file").exists()


@pytest.mark.parametrize("case", [case for case, (*_, console, _model) in ATTRIBUTE_SETS.items() if console is not None])
def test_the_console_refuses_a_bad_attribute_set_beside_its_input_in_the_same_words(case, campaign, organiser):
    given, _field, message, console, _model = ATTRIBUTE_SETS[case]
    topic_type = campaign.topic_types.get()
    before = list(AttributeSet.objects.values_list("pk", "version"))
    url = reverse("console:attribute_set_new", kwargs={"slug": campaign.slug, "topic_type": topic_type.pk})
    response = organiser.post(url, console_post(given))
    assert response.status_code == 200
    form_field, where = console
    assert response.context["form"].errors == {form_field: [sentence(message, where)]}
    assert list(AttributeSet.objects.values_list("pk", "version")) == before


@pytest.mark.parametrize("case", ATTRIBUTE_SETS)
def test_the_model_refuses_a_bad_attribute_set_beside_its_field_in_the_same_words(case, campaign):
    given, _field, message, _console, (model_field, where) = ATTRIBUTE_SETS[case]
    attribute_set = AttributeSet(topic_type=campaign.topic_types.get(), position=5, **described(given))
    with pytest.raises(ValidationError) as refused:
        attribute_set.full_clean()
    assert refused.value.message_dict == {model_field: [sentence(message, where)]}


def test_editing_an_existing_set_refuses_mapping_values_differing_only_in_case_as_the_file_does(campaign, organiser):
    origin = AttributeSet.objects.get(topic_type__campaign=campaign, name="ORIGIN")
    url = reverse("console:attribute_set", kwargs={"slug": campaign.slug, "pk": origin.pk})
    data = {**console_post({"name": "ORIGIN", "kind": "nominal", "groups": origin.groups}), "version": origin.version,
            "helper_kind": "mapping", "mapping_text": "Japan = Asia\nJAPAN = Europe"}
    response = organiser.post(url, data)
    assert response.context["form"].errors == {
        "mapping_text": ["JAPAN: the same value as 'Japan' (values match case-insensitively)."]}
    origin.refresh_from_db()
    assert (origin.helper, origin.version) == ({}, 1)


# -- campaign settings ------------------------------------------------------------------------
# Each: the setting (the model's, the console's and the API's name), the campaign file's key,
# the bad value, what the rule says.

SETTINGS = {
    "L = 0": ("patience", "L", 0, "must be at least 1"),
    "L = 2.5": ("patience", "L", 2.5, "must be a whole number"),
    "alpha = 1.5": ("alpha", "alpha", 1.5, "must be between 0 and 1"),
    "alpha = -0.1": ("alpha", "alpha", -0.1, "must be between 0 and 1"),
    "an unknown method": ("method", "method", "sometimes", "must be one of: independent, cumulative"),
    "an unknown way with empty turns": ("empty_turns", "empty_turns", "skip", "must be one of: ignore, uniform"),
    "an unknown turn weight": ("turn_weight", "turn_weight", "max", "must be one of: one, max_pw"),
    "an unknown way with a missing membership": (
        "missing_membership", "missing_membership", "skip", "must be one of: uniform, refuse"),
    "a cutoff of 0 ranks": ("ranked_list_cutoff", "ranked_list_cutoff", 0, "must be at least 1"),
}
NOT_IN_THE_API = {"ranked_list_cutoff"}  # the API's settings carry no cutoff


@pytest.mark.parametrize("case", SETTINGS)
def test_the_campaign_file_refuses_a_bad_setting_at_its_json_path_and_loads_nothing(case):
    _field, key, value, message = SETTINGS[case]
    data = {"slug": "from-file", "settings": {key: value}, "topic_types": [{"code": "M"}]}
    with pytest.raises(CampaignFileError) as refused:
        load_campaign(data, source="c.json")
    assert [str(p) for p in refused.value.problems] == [f"c.json: settings.{key}: {message}"]
    assert not Campaign.objects.filter(slug="from-file").exists()


@pytest.mark.parametrize("case", SETTINGS)
def test_the_console_refuses_a_bad_setting_beside_its_input_in_the_same_words(case, campaign, organiser):
    field, _key, value, message = SETTINGS[case]
    response = organiser.post(reverse("console:settings", kwargs={"slug": campaign.slug}), settings_post(campaign, **{field: value}))
    assert response.status_code == 200
    assert response.context["form"].errors == {field: [sentence(message)]}
    assert Campaign.objects.get(pk=campaign.pk).version == 1


@pytest.mark.parametrize("case", [case for case, (field, *_) in SETTINGS.items() if field not in NOT_IN_THE_API])
def test_the_api_refuses_a_bad_setting_in_the_same_words(case, campaign, api):
    field, _key, value, message = SETTINGS[case]
    response = api.patch(f"/api/campaigns/{campaign.slug}/", {"version": 1, field: value}, format="json")
    assert response.status_code == 400
    assert response.json() == {field: [sentence(message)]}
    assert Campaign.objects.get(pk=campaign.pk).version == 1


@pytest.mark.parametrize("case", SETTINGS)
def test_the_model_refuses_a_bad_setting_beside_its_field_in_the_same_words(case, campaign):
    field, _key, value, message = SETTINGS[case]
    setattr(campaign, field, value)
    with pytest.raises(ValidationError) as refused:
        campaign.full_clean()
    assert refused.value.message_dict == {field: [sentence(message)]}


def test_a_gain_above_1_is_refused_by_the_file_the_console_and_the_model_in_the_same_words(campaign, organiser):
    message = "must be between 0 and 1"
    data = {"slug": "from-file", "settings": {"grades": {"L0": 0, "L1": 0.5, "L2": 2}}, "topic_types": [{"code": "M"}]}
    with pytest.raises(CampaignFileError) as refused:
        load_campaign(data, source="c.json")
    assert [str(p) for p in refused.value.problems] == [f"c.json: settings.grades.L2: {message}"]

    response = organiser.post(reverse("console:settings", kwargs={"slug": campaign.slug}),
                              settings_post(campaign, grades={"L2": 2}))
    (refused_grade,) = [form for form in response.context["grades"].forms if form.errors]
    assert (refused_grade.instance.label, refused_grade.errors) == ("L2", {"gain": [sentence(message)]})
    assert Grade.objects.get(campaign=campaign, label="L2").gain == 1.0

    grade = Grade(campaign=campaign, label="L3", level=3, gain=2, ranked_list_gain=4)
    with pytest.raises(ValidationError) as refused:
        grade.full_clean()
    assert refused.value.message_dict == {"gain": [sentence(message)]}


def test_the_model_offers_exactly_the_choices_the_rules_accept():
    offered = {field: tuple(value for value, _label in Campaign._meta.get_field(field).choices) for field in CHOICES}
    assert offered == CHOICES
    assert (tuple(AttributeSet.Kind.values), tuple(AttributeSet.Divergence.values)) == (KINDS, DIVERGENCES)
