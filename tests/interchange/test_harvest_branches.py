"""Exports that keep every branch (ChatGPT's mapping, Claude.ai's parent_message_uuid): a
regenerated answer and an edited question are read as siblings, the branch the chat showed
marked, each turn named by its message's id, the citations of every branch on their turn."""

from __future__ import annotations

import json

from annotator.interchange.formats import parse_jsonl, write_jsonl, write_paper

from .harvest_helpers import DATA, cited, read, read_text, turns

IMDB = "https://www.imdb.com/title/"


def tree(conversation) -> list[tuple[str, str, int | None, bool]]:
    """Each turn as (name, id, the index of the turn it follows, shown)."""
    return [(t.name, t.id, parent, t.shown) for t, parent in zip(conversation.turns, conversation.parents())]


def test_a_chatgpt_export_with_a_regenerated_answer_and_an_edited_question_imports_every_branch():
    result = read("chatgpt-branches.json")
    assert result.errors == [] and result.warnings == []
    (conversation,) = result.conversations
    assert conversation.is_tree
    # the shown branch first (the regenerated answer a1b, the edited question u2e), then the others
    assert tree(conversation) == [
        ("U1", "u1", None, True), ("S1", "a1b", 0, True), ("U2", "u2e", 1, True), ("S2", "a2e", 2, True),
        ("U2", "u2", 1, False), ("S2", "a2", 4, False), ("S1", "a1", 0, False)]
    assert conversation.paths() == [[0, 1, 2, 3], [0, 1, 4, 5], [0, 6]]
    assert turns(conversation) == [
        ("U1", "Which sci-fi films feature time travel?"),
        ("S1", f"*Primer* (2004) by Shane Carruth cost about $7,000 ([IMDb]({IMDB}tt0390384/?utm_source=chatgpt.com))"),
        ("U2", "Any French ones?"),
        ("S2", "*Les Visiteurs* (1993) by Jean-Marie Poiré "
               "([Wikipédia](https://fr.wikipedia.org/wiki/Les_Visiteurs?utm_source=chatgpt.com))")]


def test_chatgpt_skips_tool_calls_and_hidden_messages_on_every_branch_their_children_following_the_nearest_kept():
    conversation = read("chatgpt-branches.json").conversations[0]
    texts = [t.text for t in conversation.turns]
    assert not any("query" in text or "search results" in text or "context" in text for text in texts)
    # a1b answered after a web call and its result (call -> tool -> a1b): it follows U1;
    # a2 after a hidden message (u2 -> ctx -> a2): it follows u2
    assert (conversation.turns[1].id, conversation.parents()[1]) == ("a1b", 0)
    assert (conversation.turns[5].id, conversation.parents()[5]) == ("a2", 4)


def test_the_citations_of_every_branch_are_citations_of_their_turn():
    conversation = read("chatgpt-branches.json").conversations[0]
    assert [(c.turn, c.url) for c in conversation.citations] == [
        (1, f"{IMDB}tt0390384/?utm_source=chatgpt.com"),
        (3, "https://fr.wikipedia.org/wiki/Les_Visiteurs?utm_source=chatgpt.com"),
        (5, f"{IMDB}tt1276104/?utm_source=chatgpt.com"),
        (6, f"{IMDB}tt0088763/?utm_source=chatgpt.com")]
    assert conversation.citations[3].field == "[0].mapping.a1.message.metadata.content_references[0].items[0]"


def test_a_claude_ai_export_with_a_retried_answer_and_an_edited_question_imports_every_branch():
    result = read("claude-ai-branches.json")
    assert result.errors == [] and result.warnings == []
    (conversation,) = result.conversations
    assert tree(conversation) == [
        ("U1", "m1", None, True), ("S1", "m3", 0, True), ("U2", "m6", 1, True), ("S2", "m7", 2, True),
        ("U2", "m4", 1, False), ("S2", "m5", 4, False), ("S1", "m2", 0, False)]
    assert cited(conversation) == [
        ("S1", "*Primer* (2004) by Shane Carruth cost about $7,000.", f"{IMDB}tt0390384/"),
        ("S2", "*Looper* (2012) by Rian Johnson.", f"{IMDB}tt1276104/"),
        ("S2", "*Les Visiteurs* (1993) by Jean-Marie Poiré.", "https://fr.wikipedia.org/wiki/Les_Visiteurs"),
        ("S1", "*Back to the Future* (1985) by Robert Zemeckis.", f"{IMDB}tt0088763/")]
    assert [c.turn for c in conversation.citations] == [1, 3, 5, 6]


def test_offsets_count_the_words_along_each_turns_path():
    conversation = read("claude-ai-branches.json").conversations[0]
    # U1 has 6 words, S1 (Primer) 8, U2 (2010s) 4, U2 (French) 3; the first S1 follows U1 too
    assert conversation.offsets() == [0, 6, 14, 18, 14, 17, 6]


def test_without_a_leaf_the_branch_of_the_last_message_is_shown():
    export = json.loads((DATA / "claude-ai-branches.json").read_text())
    del export[0]["current_leaf_message_uuid"]
    del export[0]["chat_messages"][5:]  # m6 and m7: the French question's answer, m5, is the last message
    (conversation,) = read_text(json.dumps(export)).conversations
    assert [t.id for t in conversation.turns if t.shown] == ["m1", "m3", "m4", "m5"]


def test_an_export_that_does_not_branch_is_a_line_as_before():
    first, second = read("chatgpt-conversations.json").conversations[1], read("claude-ai-conversations.json").conversations[0]
    assert not first.is_tree and [(t.name, t.shown) for t in first.turns] == [("U1", True), ("S1", True)]
    assert not second.is_tree and [t.name for t in second.turns] == ["U1", "S1", "U2", "S2"]  # no parents: in order
    assert json.loads(write_jsonl([first]).replace('"topic":""', '"topic":"M010"'))["turns"] == [
        {"role": "user", "text": first.turns[0].text}, {"role": "system", "text": first.turns[1].text}]


def test_a_harvested_tree_written_as_jsonl_reads_back_the_same_and_the_paper_writer_refuses_it():
    conversation = read("chatgpt-branches.json").conversations[0]
    conversation.topic = "M010"
    back = parse_jsonl(write_jsonl([conversation]), "tree.jsonl")
    assert back.errors == []
    assert tree(back.conversations[0]) == tree(conversation)
    assert [t.text for t in back.conversations[0].turns] == [t.text for t in conversation.turns]
    try:
        write_paper([conversation])
    except ValueError as refused:
        assert "a conversation that branches (3 paths) cannot be written in the paper format" in str(refused)
    else:
        raise AssertionError("a tree was written in the paper format")


def _mapping(*nodes: tuple[str, str | None, str | None, str], current: str) -> str:
    """A ChatGPT export of nodes (id, parent, role or None for the root, text)."""
    mapping = {}
    for key, parent, role, text in nodes:
        message = None if role is None else {"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}}
        mapping[key] = {"id": key, "parent": parent, "message": message}
    return json.dumps([{"conversation_id": "c", "mapping": mapping, "current_node": current}])


def test_a_message_that_goes_on_in_its_own_role_on_one_branch_and_in_the_other_on_another_ends_two_turns():
    export = _mapping(("r", None, None, ""), ("u", "r", "user", "Films?"), ("a", "u", "assistant", "Let me check."),
                      ("b", "a", "assistant", "Primer."), ("c", "a", "assistant", "Looper."),
                      ("u2", "a", "user", "Go on."), ("d", "u2", "assistant", "Arrival."), current="b")
    (conversation,) = read_text(export).conversations
    # consecutive messages of one role are one turn on every path: a+b, a+c, and a alone before u2
    assert [(t.name, t.id, t.text, t.shown) for t in conversation.turns] == [
        ("U1", "u", "Films?", True), ("S1", "a", "Let me check.", False), ("S1", "b", "Let me check.\n\nPrimer.", True),
        ("S1", "c", "Let me check.\n\nLooper.", False), ("U2", "u2", "Go on.", False), ("S2", "d", "Arrival.", False)]
    assert conversation.parents() == [None, 0, 0, 0, 1, 4]


def test_an_edited_first_question_is_a_second_root():
    export = _mapping(("r", None, None, ""), ("u", "r", "user", "Films?"), ("a", "u", "assistant", "Which?"),
                      ("v", "r", "user", "Time travel films?"), ("b", "v", "assistant", "Primer."), current="b")
    (conversation,) = read_text(export).conversations
    assert tree(conversation) == [("U1", "v", None, True), ("S1", "b", 0, True), ("U1", "u", None, False),
                                  ("S1", "a", 2, False)]
    assert [i for i, parent in enumerate(conversation.parents()) if parent is None] == [0, 2]


def test_a_broken_message_off_the_shown_branch_leaves_its_branch_out_with_a_warning():
    export = json.loads(_mapping(("r", None, None, ""), ("u", "r", "user", "Films?"), ("a", "u", "assistant", "Primer."),
                                 ("x", "u", "assistant", "?"), ("y", "x", "user", "More?"), current="a"))
    export[0]["mapping"]["x"]["message"]["content"]["parts"] = "not a list"
    result = read_text(json.dumps(export))
    assert result.errors == [] and [t.text for t in result.conversations[0].turns] == ["Films?", "Primer."]
    assert [str(w) for w in result.warnings] == [
        "upload.json:1: [0].mapping.x.message.content.parts: expected a list: a branch not shown, left out"]
    export[0]["current_node"] = "y"  # shown, it refuses the file as ever
    assert [str(e) for e in read_text(json.dumps(export)).errors] == [
        "upload.json:1: [0].mapping.x.message.content.parts: expected a list"]


def test_messages_whose_parents_loop_off_the_shown_branch_are_not_read_with_a_warning():
    export = _mapping(("r", None, None, ""), ("u", "r", "user", "Films?"), ("a", "u", "assistant", "Primer."),
                      ("p", "q", "user", "x"), ("q", "p", "assistant", "y"), current="a")
    result = read_text(export)
    assert result.errors == [] and [t.text for t in result.conversations[0].turns] == ["Films?", "Primer."]
    assert [str(w) for w in result.warnings] == ["upload.json:1: [0]: 2 message(s) whose parents go round in a loop: not read"]


def test_one_conversation_exported_twice_with_another_branch_shown_refuses_the_file():
    export = json.loads((DATA / "chatgpt-branches.json").read_text())
    other = json.loads(json.dumps(export[0]))
    other["current_node"] = "a2"
    result = read_text(json.dumps([export[0], other]), "conversations.json")
    assert [e.message for e in result.errors] == [
        "conversation 'branching-1' again (as [0] at line 1) with other turns: one id, two conversations "
        "(keep the right one in the file)"]
