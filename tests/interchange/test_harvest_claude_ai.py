"""Claude.ai's data export (conversations.json, or the zip as downloaded): chat_messages read
as shown (the branch that ends at the leaf), text blocks joined, tool and thinking blocks left
out, each text block's citations citing their words."""

from __future__ import annotations

import json

from annotator.interchange.formats import count_conversations, parse_file

from .harvest_helpers import DATA, cited, read, read_text, turns, zipped

# tests/interchange/data/harvest/claude-ai-conversations.json is built from the field names of
# portable-ai-memory.org/interop/importing (conversations.json, chat_messages, sender human /
# assistant) and of the public exporters' types (ClaudeMessage: uuid, sender, text, content[],
# parent_message_uuid; conversations: current_leaf_message_uuid; text blocks' citations with
# start_index / end_index and details.url).


def test_the_export_is_read_as_claude_ai_and_says_what_it_skipped():
    result = read("claude-ai-conversations.json")
    assert result.format_name == "Claude.ai export" and result.errors == []
    assert [str(w) for w in result.warnings] == [
        "claude-ai-conversations.json:180: [2]: a conversation with no user message: skipped"]
    first, second = result.conversations
    assert turns(first) == [
        ("U1", "List sci-fi movies with time travel."),
        ("S1", "I'll look that up.\n\nVoici 🎬 two picks for fans of Pedro Almodóvar:\n\n"
               "1. **Back to the Future** (1985), directed by Robert Zemeckis\n2. *Les Visiteurs* (1993), by Jean-Marie Poiré"),
        ("U2", "Any from the 2010s?"),
        ("S2", "Sure: *Arrival* (2016) by Denis Villeneuve 👽 bends time through language."),  # an older message: its text alone
    ]
    assert (first.line, second.line, first.topic, first.run) == (2, 123, "", None)


def test_an_abandoned_answer_is_kept_as_a_branch_not_shown():
    second = read("claude-ai-conversations.json").conversations[1]
    assert second.is_tree
    assert [(t.name, t.shown, t.text) for t in second.turns][-1] == ("S1", False, "An abandoned answer.")
    assert second.parents() == [None, 0, 1, 0]
    assert len({t.id for t in second.turns}) == 4


def test_the_shown_branch_is_the_one_that_ends_at_the_leaf_message():
    second = read("claude-ai-conversations.json").conversations[1]
    assert turns(second) == [("U1", "A time travel film made for almost nothing?"),
                             ("S1", "*Primer* (2004) by Shane Carruth cost about $7,000."), ("U2", "Thanks!")]


def test_a_citation_with_offsets_cites_its_words_one_without_cites_its_block():
    first = read("claude-ai-conversations.json").conversations[0]
    assert cited(first) == [
        ("S1", "**Back to the Future** (1985), directed by Robert Zemeckis", "https://www.imdb.com/title/tt0088763/?utm_source=claude.ai"),
        ("S1", "2. *Les Visiteurs* (1993), by Jean-Marie Poiré", "https://www.allocine.fr/film/fichefilm_gen_cfilm=10045.html"),
    ]
    assert [c.field for c in first.citations] == ["[0].chat_messages[1].content[4].citations[0]",
                                                  "[0].chat_messages[1].content[5].citations[0]"]
    assert first.citations[0].title == "Back to the Future (1985) - IMDb"


def test_the_zip_as_downloaded_is_read_through_its_conversations_json():
    export = (DATA / "claude-ai-conversations.json").read_bytes()
    data = zipped({"users.json": b"[]", "projects.json": b"[]", "conversations.json": export})
    result = parse_file(data, "data-2025-05-04.zip")
    assert result.format_name == "Claude.ai export" and result.errors == [] and len(result.conversations) == 2
    assert count_conversations(data, "data-2025-05-04.zip") == 2


def test_an_unknown_sender_refuses_the_file_with_its_json_path():
    conversation = {"uuid": "u", "name": "x", "chat_messages": [{"uuid": "a", "sender": "robot", "text": "hi"}]}
    result = read_text(json.dumps([conversation]), "conversations.json")
    assert [str(e) for e in result.errors] == [
        "conversations.json:1: [0].chat_messages[0].sender: unknown sender 'robot' (human or assistant)"]


def test_a_loop_of_parents_refuses_the_file():
    messages = [{"uuid": "a", "parent_message_uuid": "b", "sender": "human", "text": "hi"},
                {"uuid": "b", "parent_message_uuid": "a", "sender": "assistant", "text": "hello"}]
    result = read_text(json.dumps([{"uuid": "u", "current_leaf_message_uuid": "b", "chat_messages": messages}]))
    assert [str(e) for e in result.errors] == [
        "upload.json:1: [0].chat_messages[1].parent_message_uuid: the parents of current_leaf_message_uuid loop"]
