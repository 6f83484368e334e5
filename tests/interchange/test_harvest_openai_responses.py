"""OpenAI Responses: a conversation's items (newest first, as listed by default, or oldest
first) and request/response logs chained by previous_response_id; flat url_citation
annotations index into their part's text."""

from __future__ import annotations

import json

from .harvest_helpers import DATA, cited, read, read_text, turns

IMDB = "https://www.imdb.com/title/"
ALLOCINE = "https://www.allocine.fr/film/fichefilm_gen_cfilm=10045.html?utm_source=openai"
LINE_BTTF = f"- **Back to the Future** (1985), directed by Robert Zemeckis ([imdb.com]({IMDB}tt0088763/?utm_source=openai))"
LINE_VISITEURS = f"- *Les Visiteurs* (1993), by Jean-Marie Poiré ([imdb.com]({IMDB}tt0108500/?utm_source=openai))([allocine.fr]({ALLOCINE}))"
S1 = ("Voici 🎬 a few picks, with a nod to Pedro Almodóvar fans:\n\n" + LINE_BTTF + "\n" + LINE_VISITEURS
      + "\n\nMore on [Letterboxd](https://letterboxd.com/list/time-travel/).")
ARRIVAL = f"*Arrival* (2016) by Denis Villeneuve 👽 ([imdb.com]({IMDB}tt2543164/?utm_source=openai))"
PRIMER = "*Primer* (2004) by Shane Carruth cost about $7,000 ([en.wikipedia.org](https://en.wikipedia.org/wiki/Primer_(film)?utm_source=openai))."
FIRST_TURNS = [("U1", "List sci-fi movies with time travel, with IMDb links."), ("S1", S1), ("U2", "Any from the 2010s?"),
               ("S2", ARRIVAL + " is a fine choice.")]
FIRST_CITED = [
    ("S1", LINE_BTTF, f"{IMDB}tt0088763/?utm_source=openai"),
    ("S1", LINE_VISITEURS, f"{IMDB}tt0108500/?utm_source=openai"),
    ("S1", LINE_VISITEURS, ALLOCINE),
    ("S2", ARRIVAL, f"{IMDB}tt2543164/?utm_source=openai"),
]
SECOND_TURNS = [("U1", "A time travel film made for almost nothing?"), ("S1", PRIMER), ("U2", "Thanks!"), ("S2", "You're welcome.")]


def test_conversation_items_listed_newest_first_or_oldest_first_read_in_conversation_order():
    result = read("openai-responses-items.jsonl")
    assert result.format_name == "OpenAI Responses" and result.errors == [] and result.warnings == []
    newest_first, oldest_first = result.conversations
    assert turns(newest_first) == FIRST_TURNS and turns(oldest_first) == SECOND_TURNS


def test_web_search_calls_and_reasoning_are_not_turns_and_citations_cite_the_line_their_link_closes():
    first, second = read("openai-responses-items.jsonl").conversations
    assert "Searching for films." not in " ".join(t.text for t in first.turns)
    assert cited(first) == FIRST_CITED
    assert cited(second) == [("S1", PRIMER, "https://en.wikipedia.org/wiki/Primer_(film)?utm_source=openai")]
    assert first.citations[0].field == "data[3].content[0].annotations[0]"


def test_a_log_of_calls_follows_previous_response_id_and_drops_instructions_and_developer_messages():
    result = read("openai-responses-log.jsonl")
    assert result.format_name == "OpenAI Responses" and result.errors == [] and result.warnings == []
    first, second = result.conversations
    assert turns(first) == FIRST_TURNS and cited(first) == FIRST_CITED
    assert turns(second) == SECOND_TURNS and (first.line, second.line) == (1, 3)
    assert [t.line for t in first.turns] == [1, 1, 2, 2]


def test_a_bare_list_of_items_is_one_conversation():
    items = [json.loads(line)["data"] for line in (DATA / "openai-responses-items.jsonl").read_text(encoding="utf-8").splitlines()]
    result = read_text(json.dumps(items[1]))
    assert result.errors == [] and [turns(c) for c in result.conversations] == [SECOND_TURNS]


def test_a_response_alone_is_refused_it_holds_only_the_systems_side():
    result = read_text(json.dumps({"id": "resp_1", "object": "response", "output": []}))
    assert [str(e) for e in result.errors] == [
        "upload.json:1: a Response holds only the system's answer: give its request too "
        '({"request": ..., "response": ...} per line) or the conversation\'s items']


def test_a_listing_with_more_items_to_fetch_warns_that_the_file_is_incomplete():
    data = {"object": "list", "has_more": True, "data": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}]}
    result = read_text(json.dumps(data))
    assert [w.message for w in result.warnings] == ["the list says has_more: the items after it are not in the file"]
