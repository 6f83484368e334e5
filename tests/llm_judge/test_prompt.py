"""The prompt says what an annotator is told, and the schema asks for what the reader reads."""

from __future__ import annotations

import json

import pytest

from annotator.llm_judge.prompt import PROMPT_VERSION, UNKNOWN_GROUP, GradeSpec, SetSpec, TopicSpec, answer_schema, build_messages
from annotator.llm_judge.runner import topic_specs
from annotator.models import Topic

MOVIES = TopicSpec(
    code="M002", description="Time travel films listed in IMDb", entity_kind="Movies",
    grades=(GradeSpec("L0", 0.0), GradeSpec("L1", 0.5), GradeSpec("L2", 1.0)),
    sets=(
        SetSpec("RATINGS", "ordinal", ("<100", "100-10K", "10K-1M", ">=1M"), {"bands": [100, 10000, 1000000]}),
        SetSpec("ORIGIN", "nominal", ("Africa", "America", "Europe"), {"mapping": {"Algeria": "Africa", "Canada": "America"}}),
        SetSpec("GENRE", "nominal", ("fiction", "documentary"), {}),
    ),
)
TURN = "Here are films:\nLooper (2012): https://www.imdb.com/title/tt1276104/"


def prompt() -> str:
    messages = build_messages(MOVIES, turn_name="S2", turn_text=TURN, request="Can you name a few more?")
    assert [m["role"] for m in messages] == ["system", "user"]
    return messages[1]["content"]


def test_the_prompt_holds_the_topic_the_request_and_the_entity_kind():
    text = prompt()
    assert "Topic M002: Time travel films listed in IMDb" in text
    assert "The user asked: Can you name a few more?" in text
    assert "The entities of this topic are Movies." in text


def test_the_prompt_lists_the_grades_with_their_gains():
    text = prompt()
    assert "- L0: not relevant to the request (gain 0)" in text
    assert "- L1: partly relevant (gain 0.5)" in text
    assert "- L2: fully relevant (gain 1)" in text


def test_each_attribute_set_says_its_groups_and_what_to_write_for_it():
    text = prompt()
    assert "- RATINGS (ordinal; groups: <100, 100-10K, 10K-1M, >=1M): write the count" in text
    assert "band limits 100, 10000, 1000000" in text
    assert "- ORIGIN (nominal; groups: Africa, America, Europe): write the values" in text and "Algeria, Canada" in text
    assert f"- GENRE (nominal; groups: fiction, documentary): write the one group it belongs to, or {UNKNOWN_GROUP}." in text


def test_the_turn_text_is_given_whole_between_markers():
    assert f"The system's answer (S2):\n<<<\n{TURN}\n>>>" in prompt()


def test_the_schema_asks_for_quote_entity_grade_and_one_field_per_set():
    schema = answer_schema(MOVIES, max_entities=12)
    items = schema["properties"]["entities"]["items"]
    assert list(items["properties"]) == ["quote", "entity", "grade", "RATINGS", "ORIGIN", "GENRE"]
    assert items["required"] == list(items["properties"])
    assert items["properties"]["grade"]["enum"] == ["L0", "L1", "L2"]
    assert items["properties"]["RATINGS"] == {"type": "string", "maxLength": 80}  # evidence, read by the helper
    assert items["properties"]["entity"] == {"type": "string", "maxLength": 200}
    assert items["properties"]["GENRE"]["enum"] == ["fiction", "documentary", UNKNOWN_GROUP]
    assert schema["properties"]["entities"]["maxItems"] == 12
    json.dumps(schema)  # plain JSON: what llama.cpp's grammar and vLLM take


def test_with_the_turns_lines_a_quote_is_one_of_them_and_an_entity_per_line_at_most():
    schema = answer_schema(MOVIES, max_entities=12, lines=["Here are films:", "Looper (2012): https://x/", "Here are films:"])
    entities = schema["properties"]["entities"]
    assert entities["items"]["properties"]["quote"]["enum"] == ["Here are films:", "Looper (2012): https://x/"]
    assert entities["maxItems"] == 2


def test_the_prompt_version_is_named():
    assert PROMPT_VERSION.startswith("gfrc-llm-judge-v")


@pytest.mark.django_db
def test_the_topic_spec_comes_from_the_campaign(django_db_setup):
    from django.core.management import call_command

    call_command("load_demo", stdout=open("/dev/null", "w"))
    topic = Topic.objects.select_related("topic_type").get(campaign__slug="fairweb1", code="M002")
    spec = topic_specs(topic.campaign_id, [topic])[topic.pk]
    assert spec.code == "M002" and spec.entity_kind == "Movies"
    assert [g.label for g in spec.grades] == ["L0", "L1", "L2"] and [g.gain for g in spec.grades] == [0, 0.5, 1]
    assert [s.name for s in spec.sets] == ["RATINGS", "ORIGIN"]
    assert spec.sets[0].reads_evidence and "bands" in spec.sets[0].helper
