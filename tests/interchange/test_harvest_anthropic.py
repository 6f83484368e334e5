"""Anthropic Messages with web search: text blocks joined as shown, tool blocks and thinking
left out, each cited block's words cited by its web_search_result_location URLs."""

from __future__ import annotations

import json

from .harvest_helpers import cited, read, read_text, turns

S1 = ("I'll search for time travel films.\n\nVoici 🎬 a few picks for fans of Pedro Almodóvar:\n\n"
      "1. **Back to the Future** (1985), directed by Robert Zemeckis\n"
      "2. *Les Visiteurs* (1993), by Jean-Marie Poiré\n\n"
      "See the [IMDb list](https://www.imdb.com/list/ls000000001/) for more.")


def test_an_array_of_messages_conversations_is_read_as_anthropic_messages():
    result = read("anthropic-messages.json")
    assert result.format_name == "Anthropic Messages" and result.errors == [] and result.warnings == []
    first, second = result.conversations
    assert turns(first) == [("U1", "List sci-fi movies with time travel."), ("S1", S1), ("U2", "Any from the 2010s?"),
                            ("S2", "Sure: *Arrival* (2016) by Denis Villeneuve 👽 bends time through language.")]
    assert turns(second) == [("U1", "A time travel film made for almost nothing?"),
                             ("S1", "*Primer* (2004) by Shane Carruth cost about $7,000."), ("U2", "Thanks!"),
                             ("S2", "You're welcome.")]
    assert (first.line, second.line) == (2, 134)  # the lines where the array's elements start


def test_a_cited_block_is_the_cited_span_taken_to_whole_words():
    first, second = read("anthropic-messages.json").conversations
    assert cited(first) == [
        ("S1", "**Back to the Future** (1985), directed by Robert Zemeckis", "https://www.imdb.com/title/tt0088763/"),
        ("S1", "*Les Visiteurs* (1993), by Jean-Marie Poiré", "https://www.imdb.com/title/tt0108500/"),
        ("S1", "*Les Visiteurs* (1993), by Jean-Marie Poiré", "https://www.allocine.fr/film/fichefilm_gen_cfilm=10045.html"),
        ("S2", "*Arrival* (2016) by Denis Villeneuve 👽 bends time through language.", "https://www.imdb.com/title/tt2543164/"),
    ]
    assert cited(second) == [("S1", "*Primer* (2004) by Shane Carruth cost about $7,000.", "https://en.wikipedia.org/wiki/Primer_(film)")]
    assert first.citations[2].field == "[0].messages[1].content[6].citations[1]"


def test_a_request_response_log_is_read_too():
    block = {"type": "text", "text": "*Cléo from 5 to 7* (1962)",
             "citations": [{"type": "web_search_result_location", "url": "https://www.imdb.com/title/tt0055852/", "title": "Cléo",
                            "cited_text": "Cléo de 5 à 7", "encrypted_index": "x"}]}
    call = {"request": {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Films by Agnès Varda?"}]},
            "response": {"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "Émile 🎞️ liked "}, block]}}
    result = read_text(json.dumps(call) + "\n", "calls.jsonl")
    assert result.format_name == "Anthropic Messages" and result.errors == []
    assert cited(result.conversations[0]) == [("S1", "*Cléo from 5 to 7* (1962)", "https://www.imdb.com/title/tt0055852/")]
