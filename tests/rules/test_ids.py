"""annotator.rules.ids: the one rule on topic, run, attribute-set and entity ids."""

import pytest

from annotator.rules.ids import ATTRIBUTE_SET, ENTITY, RUN, TOPIC, field_token, id_problem


@pytest.mark.parametrize(("kind", "value"), [
    (TOPIC, "M002"), (TOPIC, "R1.a-b_c"), (RUN, "bing-trial1"), (RUN, "gpt/4o:v2"), (RUN, "système"),
    (ATTRIBUTE_SET, "ORIGIN"), (ATTRIBUTE_SET, "h-index_2"), (ENTITY, "name:back to the future (1985)"),
    (ENTITY, "https://imdb.com/title/tt0088763"),
])
def test_ordinary_ids_pass(kind, value):
    assert id_problem(kind, value) is None


@pytest.mark.parametrize(("kind", "value", "reason"), [
    (TOPIC, "M9 a L0\nM002 evil L2\nM9", "line break"),
    (TOPIC, "M002 x", "whitespace"),
    (TOPIC, "2M", "is not a letter"),
    (TOPIC, "M" * 33, "longer than 32"),
    (RUN, "bing\ttrial", "control"),
    (RUN, "bing trial", "whitespace"),
    (RUN, "a\u2028b", "line break"),
    (RUN, "a\u200bb", "control"),  # a zero-width space: format character
    (RUN, "", "non-empty"),
    (ATTRIBUTE_SET, "a/b", "is not a letter"),
    (ATTRIBUTE_SET, "SPAN", "reserved"),
    (ENTITY, "name:x\nM002 evil L2", "line break"),
    (ENTITY, "name:\ud800", "control"),
])
def test_ids_that_would_forge_a_field_or_a_line_are_refused_with_the_reason(kind, value, reason):
    assert reason in id_problem(kind, value)


def test_a_field_token_percent_encodes_what_would_split_the_field_or_the_line():
    assert field_token("name:back to the future (1985)") == "name:back%20to%20the%20future%20(1985)"
    assert field_token("name:x\nM002 evil L2") == "name:x%0AM002%20evil%20L2"
    assert field_token("https://imdb.com/title/tt1") == "https://imdb.com/title/tt1"
    assert field_token("a\u3000b\u2028c") == "a%E3%80%80b%E2%80%A8c"
