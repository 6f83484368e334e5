"""Conversations that branch in JSONL (issue 42): `turns[].id`, `turns[].parent`, `turns[].p`,
`turns[].shown`."""

from __future__ import annotations

import copy
import json

import pytest

from annotator.interchange.formats.jsonl import parse_jsonl, write_jsonl

# U1; two regenerations of S1 (p 0.7 / 0.3); a follow-up and its answer under each
TREE = {"topic": "M001", "run": "bing-trial1", "turns": [
    {"id": "u1", "role": "user", "text": "Please list up movies."},
    {"id": "a", "parent": "u1", "role": "system", "text": "Film A https://www.imdb.com/title/tt1/ is good", "p": 0.7},
    {"id": "b", "parent": "u1", "role": "system", "text": "Film B https://www.imdb.com/title/tt2/", "p": 0.3},
    {"id": "u2a", "parent": "a", "role": "user", "text": "Can you name a few more?"},
    {"id": "s2a", "parent": "u2a", "role": "system", "text": "Film C"},
    {"id": "u2b", "parent": "b", "role": "user", "text": "More?"},
    {"id": "s2b", "parent": "u2b", "role": "system", "text": "Film D and Film E"},
], "nuggets": [{"turn": "s2b", "start": 3, "end": 4, "grade": "L1"}]}


def parsed(obj):
    return parse_jsonl(json.dumps(obj), "tree.jsonl")


def test_a_tree_reads_with_each_turn_following_its_parent():
    result = parsed(TREE)
    assert result.errors == []
    conversation = result.conversations[0]
    assert conversation.is_tree
    assert conversation.parents() == [None, 0, 0, 1, 3, 2, 5]
    assert [t.name for t in conversation.turns] == ["U1", "S1", "S1", "U2", "S2", "U2", "S2"]
    assert [t.p for t in conversation.turns] == [None, 0.7, 0.3, None, None, None, None]
    assert conversation.paths() == [[0, 1, 3, 4], [0, 2, 5, 6]]


def test_words_are_counted_along_the_path_from_the_root():
    conversation = parsed(TREE).conversations[0]
    # U1 4 words; S1a 5; S1b 3; U2a 6; U2b 1
    assert conversation.offsets() == [0, 4, 4, 9, 15, 7, 8]
    nugget = conversation.nuggets[0]
    assert (nugget.turn, nugget.text) == (6, "Film E")
    assert conversation.wc(nugget) == 8 + 5


def test_a_tree_writes_back_as_it_was_read():
    first = write_jsonl(parsed(TREE).conversations)
    again = parse_jsonl(first, "again.jsonl")
    assert again.errors == []
    assert write_jsonl(again.conversations) == first
    turns = json.loads(first)["turns"]
    assert [(t["id"], t["parent"], t.get("p")) for t in turns] == [
        ("u1", None, None), ("a", "u1", 0.7), ("b", "u1", 0.3), ("u2a", "a", None), ("s2a", "u2a", None),
        ("u2b", "b", None), ("s2b", "u2b", None)]


def test_a_linear_file_reads_and_writes_as_it_always_did():
    line = {"topic": "M001", "run": "r", "turns": [{"role": "user", "text": "hi"}, {"role": "system", "text": "Film A"}]}
    conversation = parsed(line).conversations[0]
    assert not conversation.is_tree
    assert conversation.parents() == [None, 0]
    assert json.loads(write_jsonl([conversation])) == line


def test_ids_alone_do_not_make_a_tree():
    line = {"topic": "M001", "run": "r", "turns": [{"id": "x", "role": "user", "text": "hi"}, {"role": "system", "text": "A"}]}
    assert not parsed(line).conversations[0].is_tree


def broken(change):
    obj = copy.deepcopy(TREE)
    change(obj["turns"])
    return [(e.field, e.message) for e in parsed(obj).errors]


@pytest.mark.parametrize("change, field, words", [
    (lambda t: t[3].update(parent="nowhere"), "turns[3].parent", "is not the id of a turn listed before this one"),
    (lambda t: t[1].update(parent="u2a"), "turns[1].parent", "is not the id of a turn listed before this one"),
    (lambda t: t[3].update(parent="u1"), "turns[3].role", "expected system after the turn it follows"),
    (lambda t: t[2].update(p=0.5), "turns[1].p", "sum to 1.2: they must sum to 1"),
    (lambda t: t[2].update(p=1.5), "turns[2].p", "must be a number from 0 to 1"),
    (lambda t: t[2].update(id="a"), "turns[2].id", "is already turns[1]'s"),
    (lambda t: t[2].update(shown="no"), "turns[2].shown", "must be true or false"),
])
def test_a_bad_tree_is_refused_at_its_place(change, field, words):
    errors = broken(change)
    assert any(f == field and words in message for f, message in errors), errors


def test_a_missing_p_shares_what_its_siblings_leave():
    errors = broken(lambda t: t[2].pop("p"))
    assert errors == []


def test_the_branch_the_chat_showed_is_read_and_written_back():
    obj = copy.deepcopy(TREE)
    for i in (1, 3, 4):  # the first regeneration and its follow-up were not the branch shown
        obj["turns"][i]["shown"] = False
    conversation = parsed(obj).conversations[0]
    assert [t.shown for t in conversation.turns] == [True, False, True, False, False, True, True]
    written = write_jsonl([conversation])
    assert [t.get("shown", True) for t in json.loads(written)["turns"]] == [True, False, True, False, False, True, True]
    assert "true" not in written  # a shown turn says nothing: it is the default
    assert write_jsonl(parse_jsonl(written, "again.jsonl").conversations) == written


def test_a_line_cannot_have_a_turn_off_the_branch_shown():
    line = {"topic": "M001", "run": "r", "turns": [{"role": "user", "text": "hi"}, {"role": "system", "text": "A", "shown": False}]}
    assert [(e.field, e.message) for e in parsed(line).errors] == [
        ("turns[1].shown", "only a turn of a conversation that branches (turns with parent) can be off the branch shown")]
