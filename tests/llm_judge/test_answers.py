"""Reading an answer: quotes located as the turn's words, everything else checked, nothing guessed."""

from __future__ import annotations

import json
from pathlib import Path

from annotator.llm_judge.answers import locate, read_answer
from annotator.llm_judge.prompt import SetSpec, TopicSpec
from annotator.rules.evidence import EvidenceError, vector_from_evidence
from scoring.words import span_text, tokenise
from tests.llm_judge.test_prompt import MOVIES

TURN = (
    "Here are some sci-fi movies that feature time travel, listed in IMDb:\n"
    "Back to the Future (1985): https://www.imdb.com/title/tt0088763/\n"
    "The Terminator (1984): https://www.imdb.com/title/tt0088247/\n"
    "I hope this helps!"
)
WORDS = tokenise(TURN)
BTTF = "Back to the Future (1985): https://www.imdb.com/title/tt0088763/"
TERMINATOR = "The Terminator (1984): https://www.imdb.com/title/tt0088247/"


def helper(name: str, evidence: str):
    spec = next(s for s in MOVIES.sets if s.name == name)
    try:
        return vector_from_evidence(spec.helper, list(spec.groups), evidence)
    except EvidenceError as error:
        raise ValueError(str(error)) from error


def entity(quote, grade="L2", entity="", ratings="", origin="", genre="unknown"):
    return {"quote": quote, "entity": entity, "grade": grade, "RATINGS": ratings, "ORIGIN": origin, "GENRE": genre}


def read(*entities, finish="stop", judged=None):
    return read_answer(json.dumps({"entities": list(entities)}), finish, MOVIES, TURN, helper, judged)


def test_a_quote_is_located_as_the_turns_words():
    reading = read(entity(BTTF, entity="https://www.imdb.com/title/tt0088763/", ratings="1.3M", origin="Canada"))
    assert reading.problems == [] and not reading.refused
    (p,) = reading.proposals
    assert span_text(WORDS, p.start, p.end) == BTTF
    assert (p.grade, p.entity) == ("L2", None)  # the URL of its words is its entity
    assert p.memberships == {"RATINGS": (0.0, 0.0, 0.0, 1.0), "ORIGIN": (0.0, 1.0, 0.0)}


def test_a_quote_differing_in_case_or_surrounding_punctuation_is_the_same_words():
    assert locate('"back to the future (1985)"', WORDS) == (12, 16) == locate("Back to the Future (1985):", WORDS)
    assert span_text(WORDS, 12, 16) == "Back to the Future (1985):"


def test_a_quote_not_in_the_turn_is_reported_and_skipped():
    reading = read(entity("Interstellar (2014)"), entity(TERMINATOR))
    assert len(reading.proposals) == 1
    assert reading.problems == ["entities[0]: quote not found in the turn: 'Interstellar (2014)'; skipped"]


def test_a_repeated_mention_is_merged_not_written_twice():
    reading = read(entity(BTTF), entity(TERMINATOR), entity(BTTF), entity(TERMINATOR), entity(BTTF))
    assert [span_text(WORDS, p.start, p.end) for p in reading.proposals] == [BTTF, TERMINATOR]
    assert reading.duplicates == 3 and reading.problems == []


def test_a_bad_grade_is_reported_and_the_entity_skipped():
    reading = read(entity(BTTF, grade="L3"), entity(TERMINATOR, grade="relevant"))
    assert reading.proposals == []
    assert reading.problems[0] == "entities[0]: 'L3' is not a grade of the campaign (L0, L1, L2); skipped"


def test_an_unknown_group_or_unreadable_evidence_leaves_that_membership_out():
    reading = read(entity(BTTF, ratings="lots", origin="Atlantis", genre="comedy"))
    (p,) = reading.proposals
    assert p.memberships == {}
    assert [problem.split(":")[1].strip() for problem in reading.problems] == ["RATINGS", "ORIGIN", "GENRE"]
    assert "is not a group (fiction, documentary)" in reading.problems[2]


def test_empty_evidence_and_unknown_are_no_membership_and_no_problem():
    reading = read(entity(BTTF, ratings="", origin=" ", genre="unknown"))
    assert reading.proposals[0].memberships == {} and reading.problems == []


def test_a_group_of_a_set_without_helper_is_one_hot():
    assert read(entity(BTTF, genre="documentary")).proposals[0].memberships == {"GENRE": (0.0, 1.0)}


def test_a_quote_overlapping_an_earlier_entitys_words_is_skipped():
    reading = read(entity(BTTF), entity("(1985): https://www.imdb.com/title/tt0088763/ The Terminator"))
    assert len(reading.proposals) == 1 and "overlaps the words of an earlier entity" in reading.problems[0]


def test_an_entity_judged_differently_later_keeps_its_first_judgment():
    judged = {}
    read(entity(BTTF, grade="L1"), judged=judged)  # the conversation's earlier turn
    reading = read(entity(BTTF, grade="L2"), judged=judged)
    assert reading.proposals[0].grade == "L1"
    assert "judged differently than at its first mention" in reading.problems[0]


def test_words_holding_a_url_are_that_urls_entity_whatever_the_model_named():
    (p,) = read(entity(TERMINATOR, entity="https://www.imdb.com/title/tt0088763/")).proposals
    assert p.entity is None  # the nugget's words name it: https://www.imdb.com/title/tt0088247/
    (p,) = read(entity("I hope this helps!", entity="Hope Floats (1998)")).proposals
    assert p.entity == "Hope Floats (1998)"


def test_broken_json_refuses_the_whole_answer():
    reading = read_answer('{"entities": [{"quote": "Back', "stop", MOVIES, TURN, helper)
    assert reading.refused and reading.proposals == []
    assert reading.problems[0].startswith("the answer is not JSON")


def test_json_cut_at_the_token_limit_says_so():
    reading = read_answer('{"entities": [{"quote": "Back', "length", MOVIES, TURN, helper)
    assert reading.refused and "cut at the token limit" in reading.problems[0]


def test_json_of_another_shape_is_refused():
    for text in ('[1, 2]', '{"entities": "none"}', '{"entities": [1]}', '"x"'):
        assert read_answer(text, "stop", MOVIES, TURN, helper).refused


# -- real answers of Gemma 3 270M through llama.cpp's grammar (tests/llm_judge/data) ----------

RECORDED = json.loads((Path(__file__).parent / "data" / "gemma3-270m-answers.json").read_text())
DEMO = TopicSpec(
    "M002", "", "Movies", MOVIES.grades,
    (SetSpec("RATINGS", "ordinal", ("<100", "100-10K", "10K-1M", ">=1M"), {"bands": [100, 10000, 1000000]}),
     SetSpec("ORIGIN", "nominal", ("Africa", "America", "Europe"), {"mapping": {"United States": "America"}})),
)


def demo_helper(name: str, evidence: str):
    spec = next(s for s in DEMO.sets if s.name == name)
    try:
        return vector_from_evidence(spec.helper, list(spec.groups), evidence)
    except EvidenceError as error:
        raise ValueError(str(error)) from error


def recorded(index: int):
    answer = RECORDED["answers"][index]
    text = RECORDED["turns"][answer["turn"]]
    return answer, text, read_answer(answer["text"], answer["finish_reason"], DEMO, text, demo_helper)


def test_real_answers_cut_at_the_token_limit_are_refused_whole():
    for index in (0, 1, 2):
        answer, _, reading = recorded(index)
        assert answer["finish_reason"] == "length"
        assert reading.refused and reading.proposals == []
        assert reading.problems == [f"the answer was cut at the token limit ({len(answer['text'])} characters of unfinished "
                                    "JSON); none of it is used"]


def test_a_real_answer_repeating_one_line_gives_one_nugget_its_first_grade_and_says_what_it_left_out():
    _, text, reading = recorded(3)
    (nugget,) = reading.proposals
    assert span_text(tokenise(text), nugget.start, nugget.end) == (
        "I hope this helps! Let me know if there's anything else I can help you with.")
    assert nugget.grade == "L0" and nugget.memberships == {}
    assert reading.duplicates == 2 and not reading.refused
    assert sum("judged differently than at its first mention" in p for p in reading.problems) == 2
    assert any("RATINGS: the evidence '}, {' cannot be read" in p for p in reading.problems)
    assert any("ORIGIN: the evidence 'Africa, America" in p and "unknown value(s)" in p for p in reading.problems)
