"""OpenAI Chat Completions: messages arrays (one per line, or a bare array, or request /
response logs); nested url_citation annotations cite the line their link marker closes."""

from __future__ import annotations

import json

from .harvest_helpers import cited, read, read_text, turns

IMDB = "https://www.imdb.com/title/"
LINE_BTTF = f"- **Back to the Future** (1985), directed by Robert Zemeckis ([imdb.com]({IMDB}tt0088763/?utm_source=openai))"
LINE_VISITEURS = (f"- *Les Visiteurs* (1993), by Jean-Marie Poiré ([imdb.com]({IMDB}tt0108500/?utm_source=openai)) "
                  "([allocine.fr](https://www.allocine.fr/film/fichefilm_gen_cfilm=10045.html?utm_source=openai))")


def test_a_file_of_messages_arrays_is_read_as_chat_completions_one_conversation_a_line():
    result = read("openai-chat-completions.jsonl")
    assert result.format_name == "OpenAI Chat Completions" and result.errors == [] and result.warnings == []
    assert [c.line for c in result.conversations] == [1, 2]


def test_turns_are_user_and_assistant_text_without_system_developer_tool_or_reasoning():
    first, second = read("openai-chat-completions.jsonl").conversations
    assert turns(first) == [
        ("U1", "List sci-fi movies with time travel, with IMDb links."),
        ("S1", "Voici 🎬 a few picks, with a nod to Pedro Almodóvar fans:\n\n" + LINE_BTTF + "\n" + LINE_VISITEURS
         + "\n\nMore on [Letterboxd](https://letterboxd.com/list/time-travel/)."),
        ("U2", "Any from the 2010s?"),
        ("S2", f"*Arrival* (2016) by Denis Villeneuve ([imdb.com]({IMDB}tt2543164/?utm_source=openai)) is a fine choice."),
    ]
    assert [name for name, _ in turns(second)] == ["U1", "S1", "U2", "S2"]
    assert "Primer ..." not in second.turns[1].text and turns(second)[3] == ("S2", "You're welcome.")


def test_each_url_citation_cites_the_words_its_link_closes_and_adjacent_links_the_same_words():
    first, second = read("openai-chat-completions.jsonl").conversations
    assert cited(first) == [
        ("S1", LINE_BTTF, f"{IMDB}tt0088763/?utm_source=openai"),
        ("S1", LINE_VISITEURS, f"{IMDB}tt0108500/?utm_source=openai"),
        ("S1", LINE_VISITEURS, "https://www.allocine.fr/film/fichefilm_gen_cfilm=10045.html?utm_source=openai"),
        ("S2", f"*Arrival* (2016) by Denis Villeneuve ([imdb.com]({IMDB}tt2543164/?utm_source=openai))",
         f"{IMDB}tt2543164/?utm_source=openai"),
    ]
    assert cited(second) == [(
        "S1",
        "*Primer* (2004) by Shane Carruth cost about $7,000 ([en.wikipedia.org](https://en.wikipedia.org/wiki/Primer_(film)?utm_source=openai)).",
        "https://en.wikipedia.org/wiki/Primer_(film)?utm_source=openai",
    )]
    assert first.citations[2].title == "Les Visiteurs - AlloCiné"
    assert first.citations[2].field == "messages[2].annotations[2].url_citation"


URL = f"{IMDB}tt0055852/?utm_source=openai"
ANSWER = f"Émile 🎞️ likes *Cléo from 5 to 7* (1962) ([imdb.com]({URL})) a lot."


def _annotated(start: int, end: int) -> list[dict]:
    return [{"role": "user", "content": "Films by Agnès Varda?"},
            {"role": "assistant", "content": ANSWER,
             "annotations": [{"type": "url_citation", "url_citation": {"start_index": start, "end_index": end, "url": URL, "title": "Cléo"}}]}]


def test_offsets_are_checked_in_code_points_then_utf16_then_utf8_and_found_by_url_when_none_fits():
    link = f"([imdb.com]({URL}))"
    at = ANSWER.index(link)
    prefix = ANSWER[:at]
    expected = [("S1", f"Émile 🎞️ likes *Cléo from 5 to 7* (1962) {link}", URL)]
    for start, size in ((at, len(link)), (len(prefix.encode("utf-16-le")) // 2, len(link)), (len(prefix.encode()), len(link.encode()))):
        result = read_text(json.dumps(_annotated(start, start + size)))
        assert result.format_name == "OpenAI Chat Completions" and result.warnings == [], start
        assert cited(result.conversations[0]) == expected, start
    wrong = read_text(json.dumps(_annotated(0, 3)))
    assert cited(wrong.conversations[0]) == expected
    assert [w.message for w in wrong.warnings] == [f"the offsets do not point at the link to {URL}: found by its URL"]


def test_a_request_response_log_continues_a_conversation_while_the_request_repeats_it():
    def call(history, answer, annotations=()):
        return json.dumps({"request": {"model": "gpt-4o-search-preview", "messages": history},
                           "response": {"id": "chatcmpl-1", "object": "chat.completion",
                                        "choices": [{"index": 0, "message": {"role": "assistant", "content": answer,
                                                                            "annotations": list(annotations)}}]}})
    u1 = {"role": "user", "content": "Films by Agnès Varda?"}
    a1 = {"role": "assistant", "content": ANSWER}
    u2 = {"role": "user", "content": "And by Jacques Demy?"}
    link = f"([imdb.com]({URL}))"
    annotation = {"type": "url_citation", "url_citation": {"start_index": ANSWER.index(link), "end_index": ANSWER.index(link) + len(link), "url": URL, "title": ""}}
    log = "\n".join([
        call([{"role": "system", "content": "Be brief."}, u1], ANSWER, [annotation]),
        call([{"role": "system", "content": "Be brief."}, u1, a1, u2], "*Lola* (1961)."),
        call([{"role": "user", "content": "Something else entirely"}], "Sure."),
    ])
    result = read_text(log, "calls.jsonl")
    assert result.format_name == "OpenAI Chat Completions" and result.errors == []
    first, second = result.conversations
    assert turns(first) == [("U1", "Films by Agnès Varda?"), ("S1", ANSWER), ("U2", "And by Jacques Demy?"), ("S2", "*Lola* (1961).")]
    assert cited(first) == [("S1", f"Émile 🎞️ likes *Cléo from 5 to 7* (1962) {link}", URL)]
    assert (first.line, second.line) == (1, 3) and turns(second) == [("U1", "Something else entirely"), ("S1", "Sure.")]


def test_a_bad_message_refuses_the_file_with_its_line_and_json_path():
    good = json.dumps({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]})
    bad = json.dumps({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": 42}]})
    result = read_text(good + "\n" + bad, "h.jsonl")
    assert [str(e) for e in result.errors] == ["h.jsonl:2: messages[1].content: a content is a string or a list of parts"]


def test_an_end_index_naming_the_links_last_character_is_read_too():
    link = f"([imdb.com]({URL}))"
    at = ANSWER.index(link)
    result = read_text(json.dumps(_annotated(at, at + len(link) - 1)))
    assert result.warnings == [] and cited(result.conversations[0]) == [
        ("S1", f"Émile 🎞️ likes *Cléo from 5 to 7* (1962) {link}", URL)]


def test_a_chat_completion_alone_is_refused_it_holds_only_the_systems_side():
    response = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": "Hi"}}]}
    result = read_text(json.dumps(response))
    assert result.format_name == "OpenAI Chat Completions"
    assert [str(e) for e in result.errors] == [
        'upload.json:1: a response holds only the system\'s answer: log {"request": ..., "response": ...} per call']
