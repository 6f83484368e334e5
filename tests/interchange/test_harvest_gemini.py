"""Gemini request/response logs with Google Search grounding: segments in UTF-8 bytes of
their part cite their own words; REST camelCase and the Python SDK's snake_case alike."""

from __future__ import annotations

import json

from .harvest_helpers import cited, read, read_text, turns

REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
S1 = ("Voici 🎬 a few picks for fans of Pedro Almodóvar:\n\n"
      "* **Back to the Future** (1985) was directed by Robert Zemeckis.\n"
      "* *Les Visiteurs* (1993) is a French comedy by Jean-Marie Poiré.\n\n"
      "See [IMDb](https://www.imdb.com/list/ls000000001/) for more.")
S2 = "*Arrival* (2016), by Denis Villeneuve 👽, bends time through language. It won an Oscar for sound editing."
PRIMER = "*Primer* (2004) by Shane Carruth cost about $7,000. Its plot is famously intricate."


def test_a_log_of_calls_is_read_as_gemini_one_conversation_per_history():
    result = read("gemini-grounding-log.jsonl")
    assert result.format_name == "Gemini" and result.errors == [] and result.warnings == []
    first, second = result.conversations
    assert turns(first) == [("U1", "List sci-fi movies with time travel."), ("S1", S1), ("U2", "Any from the 2010s?"), ("S2", S2)]
    assert turns(second) == [("U1", "A time travel film made for almost nothing?"), ("S1", PRIMER), ("U2", "Thanks!"),
                             ("S2", "You're welcome.")]
    assert (first.line, second.line) == (1, 3)


def test_segments_in_utf8_bytes_cite_their_own_words_after_an_emoji_and_accents():
    first, _ = read("gemini-grounding-log.jsonl").conversations
    bttf = "**Back to the Future** (1985) was directed by Robert Zemeckis."
    visiteurs = "*Les Visiteurs* (1993) is a French comedy by Jean-Marie Poiré."
    arrival = "*Arrival* (2016), by Denis Villeneuve 👽, bends time through language."
    oscar = "It won an Oscar for sound editing."
    assert cited(first) == [
        ("S1", bttf, REDIRECT + "AbC1"),
        ("S1", visiteurs, REDIRECT + "DeF2"),
        ("S1", visiteurs, REDIRECT + "GhI3"),
        ("S2", arrival, REDIRECT + "JkL4"),
        ("S2", oscar, REDIRECT + "MnO5"),
        ("S2", oscar, REDIRECT + "JkL4"),
    ]


def test_redirect_links_are_kept_with_the_domain_gemini_gives_as_title():
    first, _ = read("gemini-grounding-log.jsonl").conversations
    assert [c.title for c in first.citations[:3]] == ["imdb.com", "imdb.com", "allocine.fr"]


def test_a_python_sdk_dump_in_snake_case_skips_thoughts_and_counts_parts_as_the_response_does():
    _, second = read("gemini-grounding-log.jsonl").conversations
    assert "cheap film" not in second.turns[1].text
    assert cited(second) == [("S1", "*Primer* (2004) by Shane Carruth cost about $7,000.", REDIRECT + "PqR6")]
    assert second.citations[0].field == "response.candidates[0].grounding_metadata.grounding_supports[0].grounding_chunk_indices[0]"


def _call(answer: str, segment: dict) -> str:
    return json.dumps({"request": {"contents": [{"role": "user", "parts": [{"text": "Films by Agnès Varda?"}]}]},
                       "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": answer}]},
                                                    "groundingMetadata": {"groundingChunks": [{"web": {"uri": REDIRECT + "x", "title": "imdb.com"}}],
                                                                          "groundingSupports": [{"segment": segment, "groundingChunkIndices": [0]}]}}]}})


def test_a_span_starting_or_ending_inside_a_word_takes_the_whole_word():
    answer = "Émile 🎞️ said Cléo from 5 to 7 (1962) is her best."
    start = len(answer[: answer.index("léo")].encode())
    end = len(answer[: answer.index("962)") + 2].encode())
    result = read_text(_call(answer, {"startIndex": start, "endIndex": end}))
    assert cited(result.conversations[0]) == [("S1", "Cléo from 5 to 7 (1962)", REDIRECT + "x")]


def test_code_point_offsets_read_as_bytes_would_cite_the_wrong_words_so_the_segment_text_decides():
    answer = "Émile 🎞️ said: Cléo from 5 to 7 (1962) is her best."
    sentence = "Cléo from 5 to 7 (1962) is her best."
    at = answer.index(sentence)
    result = read_text(_call(answer, {"startIndex": at, "endIndex": at + len(sentence), "text": sentence}))
    assert cited(result.conversations[0]) == [("S1", sentence, REDIRECT + "x")] and result.warnings == []


def test_a_response_without_its_request_is_refused():
    result = read_text(json.dumps({"candidates": [], "modelVersion": "gemini-2.5-flash"}))
    assert [e.message for e in result.errors] == [
        'a response holds only the system\'s answer: log {"request": ..., "response": ...} per call']
