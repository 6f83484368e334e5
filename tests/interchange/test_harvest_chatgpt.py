"""ChatGPT's data export (conversations.json): the branch that ends at current_node, markers
replaced by their visible links, each cited source a citation of the line it closes."""

from __future__ import annotations

import json

from annotator.interchange.formats import parse_file

from .harvest_helpers import DATA, cited, read, read_text, turns, zipped

IMDB = "https://www.imdb.com/title/"


def test_the_export_is_recognised_by_its_content_whatever_the_file_is_called():
    data = read("chatgpt-conversations.json")
    renamed = parse_file((DATA / "chatgpt-conversations.json").read_bytes(), "export.txt")
    assert data.format_name == renamed.format_name == "ChatGPT export"
    assert data.errors == [] and len(data.conversations) == 2


def test_turns_are_the_shown_branch_without_system_tool_reasoning_or_abandoned_answers():
    first = read("chatgpt-conversations.json").conversations[0]
    assert [name for name, _ in turns(first)] == ["U1", "S1", "U2", "S2"]
    assert first.topic == "" and first.run is None
    texts = dict(turns(first))
    assert texts["U1"] == "Please list sci-fi movies that feature time travel, listed in IMDb. Format: title, IMDb URL"
    assert "I could not find anything." not in " ".join(texts.values())  # the regenerated-away answer
    assert "search results" not in " ".join(texts.values()) and "query" not in texts["S1"]
    assert texts["S2"] == (
        "Sure — *Arrival* (2016) by Denis Villeneuve 👽 bends time through language "
        f"([IMDb]({IMDB}tt2543164/?utm_source=chatgpt.com))."
    )


def test_a_regenerated_answer_is_kept_as_a_branch_not_shown():
    first = read("chatgpt-conversations.json").conversations[0]
    assert first.is_tree
    assert [(t.name, t.id, t.shown) for t in first.turns] == [
        ("U1", "u1", True), ("S1", "s1", True), ("U2", "u2", True), ("S2", "s2", True), ("S1", "s1old", False)]
    assert first.parents() == [None, 0, 1, 2, 0]
    assert first.turns[4].text == "I could not find anything."
    assert first.paths() == [[0, 1, 2, 3], [0, 4]]


def test_private_use_markers_are_replaced_by_their_visible_links_and_markdown_stays():
    s1 = dict(turns(read("chatgpt-conversations.json").conversations[0]))["S1"]
    assert not any("\ue200" <= ch <= "\ue2ff" for ch in s1) and "turn0search" not in s1
    assert s1 == (
        "Here are some picks 🎬 chosen with Zoë and José in mind:\n\n"
        f"1. **Back to the Future** (1985) by Robert Zemeckis ([IMDb]({IMDB}tt0088763/?utm_source=chatgpt.com))\n"
        f"2. *Les Visiteurs* (1993) by Jean-Marie Poiré ([IMDb]({IMDB}tt0108500/?utm_source=chatgpt.com))"
        "([Wikipédia](https://fr.wikipedia.org/wiki/Les_Visiteurs?utm_source=chatgpt.com))\n\n"
        "See also [the IMDb time-travel list](https://www.imdb.com/list/ls000000001/)."
    )


def test_each_source_cites_the_line_its_marker_closes_and_adjacent_markers_cite_the_same_words():
    line1 = f"1. **Back to the Future** (1985) by Robert Zemeckis ([IMDb]({IMDB}tt0088763/?utm_source=chatgpt.com))"
    line2 = (f"2. *Les Visiteurs* (1993) by Jean-Marie Poiré ([IMDb]({IMDB}tt0108500/?utm_source=chatgpt.com))"
             "([Wikipédia](https://fr.wikipedia.org/wiki/Les_Visiteurs?utm_source=chatgpt.com))")
    arrival = ("Sure — *Arrival* (2016) by Denis Villeneuve 👽 bends time through language "
               f"([IMDb]({IMDB}tt2543164/?utm_source=chatgpt.com)).")
    assert cited(read("chatgpt-conversations.json").conversations[0]) == [
        ("S1", line1, f"{IMDB}tt0088763/?utm_source=chatgpt.com"),
        ("S1", line2, f"{IMDB}tt0108500/?utm_source=chatgpt.com"),
        ("S1", line2, "https://www.allocine.fr/film/fichefilm_gen_cfilm=10045.html?utm_source=chatgpt.com"),
        ("S1", line2, "https://fr.wikipedia.org/wiki/Les_Visiteurs?utm_source=chatgpt.com"),
        ("S2", arrival, f"{IMDB}tt2543164/?utm_source=chatgpt.com"),
    ]


def test_a_citation_keeps_its_title_and_the_json_path_it_came_from():
    citation = read("chatgpt-conversations.json").conversations[0].citations[2]
    assert citation.title == "Les Visiteurs - AlloCiné"
    assert citation.field == "[0].mapping.s1.message.metadata.content_references[1].items[1]"


def test_older_exports_tether_markers_become_a_link_to_the_site_and_images_are_not_text():
    second = read("chatgpt-conversations.json").conversations[1]
    s1 = "Try *Primer* (2004), made by Shane Carruth for $7,000 ([en.wikipedia.org](https://en.wikipedia.org/wiki/Primer_(film)))."
    assert turns(second) == [("U1", "A time travel film made for almost nothing?"), ("S1", s1)]
    assert cited(second) == [("S1", s1, "https://en.wikipedia.org/wiki/Primer_(film)")]


def test_a_conversation_with_nothing_shown_is_skipped_with_a_warning():
    result = read("chatgpt-conversations.json")
    assert [(w.field, w.message) for w in result.warnings] == [("[2]", "a conversation with no user message: skipped")]


def _export(text: str, refs: list[dict]) -> str:
    mapping = {
        "r": {"id": "r", "message": None, "parent": None, "children": ["u"]},
        "u": {"id": "u", "parent": "r", "children": ["a"],
              "message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["Films by Agnès Varda?"]}}},
        "a": {"id": "a", "parent": "u", "children": [],
              "message": {"author": {"role": "assistant"}, "recipient": "all",
                          "content": {"content_type": "text", "parts": [text]}, "metadata": {"content_references": refs}}},
    }
    return json.dumps([{"title": "t", "mapping": mapping, "current_node": "a"}])


MARKER = "\ue200cite\ue202turn0search0\ue201"
TEXT = f"Émile 🎞️ liked *Cléo from 5 to 7* (1962) {MARKER}\nand more."
URL = "https://www.imdb.com/title/tt0055852/"


def _ref(start: int, end: int) -> dict:
    return {"matched_text": MARKER, "start_idx": start, "end_idx": end, "alt": f"([IMDb]({URL}))",
            "type": "grouped_webpages", "items": [{"url": URL, "title": "Cléo"}]}


def test_offsets_in_utf16_units_or_utf8_bytes_or_wrong_still_find_the_marker():
    at = TEXT.index(MARKER)
    utf16 = len(TEXT[:at].encode("utf-16-le")) // 2
    utf8 = len(TEXT[:at].encode())
    expected = [("S1", f"Émile 🎞️ liked *Cléo from 5 to 7* (1962) ([IMDb]({URL}))", URL)]
    for start in (at, utf16, utf8, 0):
        result = read_text(_export(TEXT, [_ref(start, start + len(MARKER))]))
        assert result.errors == [] and cited(result.conversations[0]) == expected, start


def test_a_marker_without_a_reference_is_removed_with_a_warning_never_left_as_garbage():
    result = read_text(_export(TEXT, []))
    assert result.conversations[0].turns[1].text == "Émile 🎞️ liked *Cléo from 5 to 7* (1962) \nand more."
    assert result.conversations[0].citations == []
    assert ["1 citation marker(s) without a content reference: removed"] == [w.message for w in result.warnings]


def test_a_current_node_missing_from_the_tree_refuses_the_file_with_its_json_path():
    broken = json.loads(_export(TEXT, []))
    broken[0]["current_node"] = "zz"
    result = read_text(json.dumps([json.loads(_export(TEXT, []))[0], broken[0]]))
    assert [str(e) for e in result.errors] == ["upload.json:1: [1].current_node: node 'zz' is not in mapping"]


def test_the_export_zip_as_downloaded_is_read_through_its_conversations_json():
    from annotator.interchange.formats import count_conversations

    export = (DATA / "chatgpt-conversations.json").read_bytes()
    data = zipped({"chat.html": b"<html></html>", "conversations.json": export, "user.json": b"{}"})
    result = parse_file(data, "export.zip")
    assert result.format_name == "ChatGPT export" and result.errors == [] and len(result.conversations) == 2
    assert count_conversations(data, "export.zip") == 3


def test_a_zip_without_conversations_json_is_refused_saying_what_a_zip_may_be():
    result = parse_file(zipped({"notes.txt": b"hello"}), "notes.zip")
    assert [str(e) for e in result.errors] == [
        "notes.zip: a zip without conversations.json or Gemini Apps/MyActivity.json: only ChatGPT's and Claude.ai's data "
        "exports and Google Takeout's Gemini Apps activity are read from a zip"]


def test_newer_exports_cite_the_attribution_segments_their_sources_name():
    claim = "**Back to the Future** (1985) by Robert Zemeckis is a classic."
    fallback = "\ue200cite\ue202turn0search0\ue201"
    text = f"Voici 🎬 options for Zoë:\n\n\ue203{claim}\ue204 {fallback}\ue206\n\nEnjoy!"
    imdb, wiki = "https://www.imdb.com/title/tt0088763/", "https://en.wikipedia.org/wiki/Back_to_the_Future"

    def ref(matched: str, **fields) -> dict:
        at = text.index(matched)
        return {"matched_text": matched, "start_idx": at, "end_idx": at + len(matched), **fields}

    refs = [
        ref("\ue203", type="hidden", alt=None, refs=["hidden"]),
        ref(claim, type="attribution", alt=claim, attributable_index="27-1"),
        ref("\ue204", type="hidden", alt=None),
        ref(fallback, type="grouped_webpages_model_predicted_fallback", alt="", prompt_text=f"([imdb.com]({imdb}))",
            items=[{"url": imdb + "?utm_source=chatgpt.com", "title": "BTTF"}]),
        ref("\ue206", type="grouped_webpages", alt=None, style="v2", items=[
            {"url": imdb, "title": "Back to the Future (1985) - IMDb", "attribution_segments": ["27-1"],
             "supporting_websites": [{"url": wiki, "title": "Back to the Future - Wikipedia"}]}]),
    ]
    result = read_text(_export(text, refs))
    conversation = result.conversations[0]
    assert result.errors == [] and result.warnings == []
    assert conversation.turns[1].text == f"Voici 🎬 options for Zoë:\n\n{claim} \n\nEnjoy!"
    assert cited(conversation) == [("S1", claim, imdb), ("S1", claim, wiki)]
    assert conversation.citations[1].field == "[0].mapping.a.message.metadata.content_references[4].items[0].supporting_websites[0]"
