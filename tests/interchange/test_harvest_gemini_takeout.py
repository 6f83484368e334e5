"""The Gemini app's activity from Google Takeout (MyActivity.json, or the Takeout zip): rows
grouped into conversations by the chat id of titleUrl and put in time order, answers read
from their HTML, the links they show proposed."""

from __future__ import annotations

import json

from annotator.interchange.formats import count_conversations, parse_file

from .harvest_helpers import DATA, cited, read, read_text, turns, zipped

# tests/interchange/data/harvest/gemini-takeout-MyActivity.json is built from My Activity's
# fields (developers.google.com/data-portability/schema-reference/my_activity: header, title,
# titleUrl, time, products, activityControls, details) and the Gemini Apps rows' answer in
# safeHtmlItem[].html (portable-ai-memory.org/providers/google); newest first, as Takeout writes.
FILE = "gemini-takeout-MyActivity.json"


def test_rows_of_one_chat_are_one_conversation_oldest_first():
    result = read(FILE)
    assert result.format_name == "Gemini Takeout" and result.errors == []
    chat, alone = result.conversations
    assert turns(chat) == [
        ("U1", "List sci-fi movies with time travel."),
        ("S1", "Voici 🎬 a few picks for fans of Pedro Almodóvar:\n\n"
               "- **Back to the Future** (1985), by Robert Zemeckis: [IMDb](https://www.imdb.com/title/tt0088763/?utm_source=gemini)\n"
               "- *Les Visiteurs* (1993) by Jean-Marie Poiré"),
        ("U2", "Any from the 2010s?"),
        ("S2", "Sure: [Arrival](https://www.imdb.com/title/tt2543164/) (2016) by Denis Villeneuve 👽 bends time through language."),
        ("U3", "Thanks!"), ("S3", "You're welcome."),
    ]
    assert chat.line == 68  # the line of its first row in time, the last in the file
    assert turns(alone)[0] == ("U1", "A time travel film made for almost nothing?")  # no chat id: a conversation of its own


def test_a_row_that_is_no_prompt_is_skipped_with_a_warning():
    assert [str(w) for w in read(FILE).warnings] == [
        "gemini-takeout-MyActivity.json:19: [1].title: an activity that is no prompt ('Used Gemini Apps'): skipped"]


def test_the_links_an_answer_shows_are_proposed():
    chat, alone = read(FILE).conversations
    assert cited(chat) == [
        ("S1", "- **Back to the Future** (1985), by Robert Zemeckis: [IMDb](https://www.imdb.com/title/tt0088763/?utm_source=gemini)",
         "https://www.imdb.com/title/tt0088763/?utm_source=gemini"),
        ("S2", "[Arrival](https://www.imdb.com/title/tt2543164/)", "https://www.imdb.com/title/tt2543164/"),
    ]
    assert cited(alone) == [
        ("S1", "*Primer* (2004) by Shane Carruth cost about $7,000: [Wikipedia](https://en.wikipedia.org/wiki/Primer_(film))",
         "https://en.wikipedia.org/wiki/Primer_(film)")]


def test_the_takeout_zip_is_read_through_its_gemini_apps_activity():
    data = zipped({"Takeout/archive_browser.html": b"<html></html>",
                   "Takeout/My Activity/Search/MyActivity.json": b"[]",
                   "Takeout/Meine Aktivitäten/Gemini Apps/MyActivity.json": (DATA / FILE).read_bytes()})
    result = parse_file(data, "takeout-20250601.zip")
    assert result.format_name == "Gemini Takeout" and result.errors == [] and len(result.conversations) == 2
    assert count_conversations(data, "takeout-20250601.zip") == 2


def test_a_row_without_its_time_refuses_the_file_with_its_json_path():
    rows = json.loads((DATA / FILE).read_text())
    del rows[3]["time"]
    result = read_text(json.dumps(rows, indent=1), "MyActivity.json")
    assert [str(e) for e in result.errors] == ["MyActivity.json:51: [3].time: the row's time, an ISO 8601 string"]


def test_titles_in_another_language_are_kept_whole_with_one_warning():
    rows = json.loads((DATA / FILE).read_text())
    for row in rows:
        row["title"] = row["title"].replace("Prompted ", "Requête : ")
    result = read_text(json.dumps(rows, indent=1), "MyActivity.json")
    assert result.errors == [] and turns(result.conversations[0])[0] == ("U1", "Requête : List sci-fi movies with time travel.")
    assert [str(w) for w in result.warnings if "Prompted" in w.message] == [
        'MyActivity.json:2: [0].title: 4 title(s) do not start with "Prompted " (an export in another language?): '
        "their user turns are the titles whole, check their first words"]
