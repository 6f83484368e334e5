"""The Gemini app's activity from Google Takeout, ``Takeout/My Activity/Gemini Apps/MyActivity.json``
(or the Takeout zip): an activity log, newest first, one row per prompt, in My Activity's
fields (developers.google.com/data-portability/schema-reference/my_activity): ``header``
("Gemini Apps"), ``title`` ("Prompted <the prompt>"), ``titleUrl``, ``time`` (ISO 8601),
``products``, ``activityControls``, ``subtitles``, ``details`` / ``userInteractions``, and
the answer as the HTML Gemini showed in ``safeHtmlItem[].html``
(portable-ai-memory.org/providers/google).

Rows are grouped into conversations by the chat id in ``titleUrl``
(``https://gemini.google.com/app/c/<id>`` or ``.../app/<id>``), each conversation's rows put
in time order; a row without an id is a conversation of its own. Rows that are no prompt
("Used Gemini Apps", feedback, settings) are skipped with a warning. No citation structure:
the answer's links are proposed (common.propose_links).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ..model import ParsedConversation
from .common import Bad, Message, Reading, Unit, conversation, dict_at, each, join, propose_links
from .dumps import html_as_text

NAME = "Gemini Takeout"
SUPPORTED = "Gemini Apps activity from Google Takeout (MyActivity.json)"

CHAT_ID_RE = re.compile(r"/app/(?:c/)?([A-Za-z0-9_-]+)")
PROMPTED = ("Prompted ", "Asked ")  # the title's verb before the prompt; other languages keep the title whole


def claims(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("header"), str) and "title" in value
            and any(key in value for key in ("safeHtmlItem", "details", "userInteractions", "activityControls", "products")))


def read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    chats: dict[str, list[tuple[str, Unit, list[Message]]]] = {}
    whole_titles: list[Unit] = []
    seen: dict[tuple, Unit] = {}
    for unit, key, time, messages in each(units, reading, lambda u: _row(u, reading)):
        if messages:
            row = (key, time, tuple((m.role, m.text) for m in messages))
            if row in seen:  # the same prompt and answer at the same time: one activity exported twice
                first = seen[row]
                reading.warn(unit.line, unit.field or None, f"the same activity again (as {first.field or 'the value'} at line "
                             f"{first.line}: same chat, time, prompt and answer): read once")
                continue
            seen[row] = unit
            chats.setdefault(key, []).append((time, unit, messages))
            if not unit.value["title"].startswith(PROMPTED):
                whole_titles.append(unit)
    if whole_titles:
        first = whole_titles[0]
        reading.warn(first.line, first.at("title"), f"{len(whole_titles)} title(s) do not start with \"Prompted \" (an export "
                     "in another language?): their user turns are the titles whole, check their first words")
    found = []
    for rows in chats.values():
        rows.sort(key=lambda row: (row[0], -row[1].line))  # newest first in the file: ties keep the older below
        first = rows[0][1]
        conv = conversation([m for _, _, messages in rows for m in messages], reading, first.line, first.field)
        if conv is not None:
            found.append((rows[0][0], first.line, conv))
    for _, _, conv in sorted(found, key=lambda f: (f[0], -f[1])):
        emit(conv)


def _row(unit: Unit, reading: Reading) -> tuple[Unit, str, str, list[Message]]:
    row = dict_at(unit.value, unit.field, "an activity row")
    title, time = row.get("title"), row.get("time")
    if not isinstance(time, str):
        raise Bad(unit.at("time"), "the row's time, an ISO 8601 string")
    if not isinstance(title, str):
        raise Bad(unit.at("title"), "the row's title, a string")
    url = row.get("titleUrl")
    chat = CHAT_ID_RE.search(url) if isinstance(url, str) else None
    key = chat.group(1) if chat else f"row {unit.field or unit.line}"
    answer = _answer(row, unit)
    prompt = next((title[len(verb):] for verb in PROMPTED if title.startswith(verb)), None)
    if prompt is None and answer is None:
        reading.warn(unit.line, unit.at("title") or None, f"an activity that is no prompt ({title[:60]!r}): skipped")
        return unit, key, time, []
    messages = [Message("U", title if prompt is None else prompt, unit.at("title"), unit.line)]
    if answer is not None:
        propose_links(answer)
        messages.append(answer)
    return unit, key, time, messages


def _answer(row: dict, unit: Unit) -> Message | None:
    items = row.get("safeHtmlItem")
    if items is None:
        return None
    if not isinstance(items, list):
        raise Bad(unit.at("safeHtmlItem"), "safeHtmlItem: expected a list")
    texts = []
    for i, item in enumerate(items):
        html = item.get("html") if isinstance(item, dict) else None
        if not isinstance(html, str):
            raise Bad(join(unit.at("safeHtmlItem"), i), "an item without its html")
        texts.append(html_as_text(html))
    text = "\n\n".join(t for t in texts if t)
    return Message("S", text, unit.at("safeHtmlItem"), unit.line) if text else None
