"""Perplexity request/response logs: [n] markers, 1-based into that response's
search_results (or its citations), cite the words before them; <think> sections are not shown."""

from __future__ import annotations

import json

from .harvest_helpers import cited, read, read_text, turns

S1 = ("Voici 🎬 a few picks for fans of Pedro Almodóvar:\n\n"
      "1. **Back to the Future** (1985), directed by Robert Zemeckis[1]\n"
      "2. *Les Visiteurs* (1993), by Jean-Marie Poiré[2][3]\n\n"
      "See the [IMDb list](https://www.imdb.com/list/ls000000001/) for more [1] [4].")
S2 = "*Arrival* (2016) by Denis Villeneuve 👽 bends time through language [1]. *Looper* (2012) is another [2]."


def test_a_log_is_read_as_perplexity_with_reasoning_and_system_prompts_left_out():
    result = read("perplexity-log.jsonl")
    assert result.format_name == "Perplexity" and result.errors == [] and result.warnings == []
    first, second = result.conversations
    assert turns(first) == [("U1", "List sci-fi movies with time travel."), ("S1", S1), ("U2", "Any from the 2010s?"), ("S2", S2)]
    assert turns(second) == [("U1", "A time travel film made for almost nothing?"),
                             ("S1", "*Primer* (2004) by Shane Carruth cost about $7,000 [1]."), ("U2", "Thanks!"),
                             ("S2", "You're welcome.")]


def test_markers_cite_the_words_before_them_adjacent_markers_the_same_words_each_answer_its_own_sources():
    first, second = read("perplexity-log.jsonl").conversations
    bttf = "1. **Back to the Future** (1985), directed by Robert Zemeckis[1]"
    visiteurs = "2. *Les Visiteurs* (1993), by Jean-Marie Poiré[2][3]"
    more = "See the [IMDb list](https://www.imdb.com/list/ls000000001/) for more [1] [4]."
    assert cited(first) == [
        ("S1", bttf, "https://www.imdb.com/title/tt0088763/"),
        ("S1", visiteurs, "https://www.imdb.com/title/tt0108500/"),
        ("S1", visiteurs, "https://www.allocine.fr/film/fichefilm_gen_cfilm=10045.html"),
        ("S1", more, "https://www.imdb.com/title/tt0088763/"),
        ("S1", more, "https://en.wikipedia.org/wiki/List_of_time_travel_works_of_fiction"),
        # the second answer's [1] is its own first source (citations only: the older field)
        ("S2", "*Arrival* (2016) by Denis Villeneuve 👽 bends time through language [1].", "https://www.imdb.com/title/tt2543164/"),
        ("S2", "*Looper* (2012) is another [2].", "https://www.imdb.com/title/tt1276104/"),
    ]
    assert cited(second) == [("S1", "*Primer* (2004) by Shane Carruth cost about $7,000 [1].", "https://en.wikipedia.org/wiki/Primer_(film)")]
    assert first.citations[2].title == "Les Visiteurs - AlloCiné" and first.citations[2].field == "response.search_results[2]"


def test_a_marker_naming_no_source_is_skipped_with_a_warning():
    call = {"request": {"messages": [{"role": "user", "content": "Films by Agnès Varda?"}]},
            "response": {"choices": [{"message": {"role": "assistant", "content": "*Cléo from 5 to 7* (1962)[1][7]"}}],
                         "citations": ["https://www.imdb.com/title/tt0055852/"]}}
    result = read_text(json.dumps(call))
    assert cited(result.conversations[0]) == [("S1", "*Cléo from 5 to 7* (1962)[1][7]", "https://www.imdb.com/title/tt0055852/")]
    assert [w.message for w in result.warnings] == ["marker [7] names no source of this response (1 given): skipped"]
