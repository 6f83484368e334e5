"""One rule names attribute sets (annotator.rules.ids, ATTRIBUTE_SET): the model, the console's form,
the campaign file and the paper writer accept and refuse exactly the same names. A second home
of the rule that disagrees (as the console once did with a/b, 2x and SPAN) fails here."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from annotator.console.forms import AttributeSetForm
from annotator.interchange.imports.campaign_file import validate_campaign
from annotator.interchange.formats.model import ParsedConversation, ParsedMembership, ParsedNugget, ParsedTurn
from annotator.interchange.formats.paper import parse_paper, write_paper
from annotator.models import AttributeSet
from annotator.rules.ids import ATTRIBUTE_SET, id_problem

ALLOWED = ["a", "GENDER", "Z9", "with-dash", "with_underscore", "Spanish", "COMMENTS", "L2", "wc", "x" * 50]
pytestmark = pytest.mark.django_db  # the console's form checks the name is free in its topic type

REFUSED = ["a/b", "2x", "SPAN", "span", "ENTITY", "COMMENT", "TWO WORDS", "_a", "-a", "é", "a:b", "x" * 51]


def model_accepts(name: str) -> bool:
    attribute_set = AttributeSet(name=name, kind="nominal", divergence="jsd", groups=["a", "b"], target=[0.5, 0.5], weight=1)
    try:
        attribute_set.full_clean(exclude=["topic_type"], validate_unique=False)
    except ValidationError as error:
        assert set(error.message_dict) == {"name"}
        return False
    return True


def console_accepts(name: str) -> bool:
    form = AttributeSetForm({"name": name, "kind": "nominal", "divergence": "jsd", "weight": 1, "position": 0,
                             "groups_text": "a, b", "helper_kind": "none"})
    form.is_valid()
    return "name" not in form.errors


def campaign_file_accepts(name: str) -> bool:
    data = {"slug": "tiny", "topic_types": [{"code": "M", "attribute_sets": [{"name": name, "kind": "nominal", "groups": ["a", "b"]}]}]}
    _spec, problems = validate_campaign(data)
    return not any(p.where.endswith(".name") for p in problems)


def paper_writer_accepts(name: str) -> bool:
    nugget = ParsedNugget(turn=1, start_word=0, end_word=0, text="https://example.org/", grade="L1",
                          memberships={name: ParsedMembership((1.0, 0.0), "", 0)})
    conversation = ParsedConversation(topic="M001", run="r", turns=[ParsedTurn("U", 1, None, "q"), ParsedTurn("S", 1, None, "https://example.org/")],
                                      nuggets=[nugget])
    try:
        text = write_paper([conversation])
    except ValueError:
        return False
    (read,) = parse_paper(text, "p.txt").conversations
    assert set(read.nuggets[0].memberships) == {name}
    return True


HOMES = [model_accepts, console_accepts, campaign_file_accepts, paper_writer_accepts]


@pytest.mark.parametrize("name", ALLOWED)
def test_every_home_accepts_a_name_the_rule_allows(name):
    assert id_problem(ATTRIBUTE_SET, name) is None
    assert [home(name) for home in HOMES] == [True] * len(HOMES)


@pytest.mark.parametrize("name", REFUSED)
def test_every_home_refuses_a_name_the_rule_refuses(name):
    assert id_problem(ATTRIBUTE_SET, name) is not None
    assert [home(name) for home in HOMES] == [False] * len(HOMES)
