"""HAR captures (a browser's or a proxy's record of the calls a page made; HAR 1.2,
http://www.softwareishard.com/blog/har-12-spec/): ``log.entries[]``, each with
``request.postData.text`` (the body sent) and ``response.content`` (``text``, ``mimeType``,
``encoding: "base64"`` when the body is binary-safe encoded).

Each entry whose bodies are a call of a vendor API this app reads (OpenAI Chat Completions
and Responses, Anthropic Messages, Gemini, Perplexity) becomes the ``{"request": ...,
"response": ...}`` of an API log, read by that vendor's reader; a streamed answer
(``text/event-stream``, or Gemini's JSON array of chunks) is assembled first (streams.py).
Every other entry (pages, scripts, telemetry) is passed over. Only the bodies are read:
headers, cookies, the request's URL and query (where API keys and session tokens are) are
never looked at, so nothing of them reaches a conversation, a warning or an error.

A plain event-stream file (one streamed answer saved as ``.sse`` / ``.txt``) is recognised and
refused with the reason: it holds no question, and a question's words count in every word
position of the answer (GFRC-SPEC), so no stand-in text may take its place.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable
from typing import Any

from ..model import LoneSurrogate, ParsedConversation, loads_json
from . import anthropic, gemini, openai_chat, openai_responses, perplexity
from .common import Reading, Unit, dict_at, join, list_at
from .streams import assemble, assemble_chunks, looks_like_events

NAME = "HAR capture"
SUPPORTED = "HAR captures (log.entries of OpenAI, Anthropic, Gemini or Perplexity calls, streamed or not)"

# The API families a capture or a stream can hold, in detection order (as in FAMILIES).
VENDORS = (openai_responses, gemini, perplexity, anthropic, openai_chat)
NO_QUESTION = ("a streamed answer alone holds no question, and the question's words count in every word "
               "position: save the call with its request (a HAR capture, or a {\"request\", \"response\"} log line)")


def claims(value: Any) -> bool:
    log = value.get("log") if isinstance(value, dict) else None
    return isinstance(log, dict) and isinstance(log.get("entries"), list)


def bodies_only(value: Any) -> Any:
    """The capture with only what is read kept: the ``request.postData`` (``mimeType``, ``text``)
    and ``response.content`` (``mimeType``, ``text``, ``encoding``) of each entry that is a
    vendor call, every other entry emptied (indices kept), so that a capture kept for a while
    (a background import's queue) holds no header, cookie, URL, query string, nor the bodies of
    other calls (telemetry, the site's own API). A value that is no capture is returned as it is."""
    if not claims(value):
        return value
    kept = []
    for i, entry in enumerate(value["log"]["entries"]):
        call = _call(entry, join("log.entries", i), 1, Reading(""))
        if call is None or vendor_of(call.value) is None:
            kept.append({})
            continue
        request = entry.get("request")
        post = request.get("postData") if isinstance(request, dict) else None
        kept.append({"request": {"postData": _fields(post, ("mimeType", "text"))} if isinstance(post, dict) else {},
                     "response": {"content": _fields(entry["response"]["content"], ("mimeType", "text", "encoding"))}})
    return {"log": {"version": value["log"].get("version"), "entries": kept}}


def _fields(obj: dict, names: tuple[str, ...]) -> dict:
    return {name: obj[name] for name in names if name in obj}


def vendor_of(value: Any):
    return next((family for family in VENDORS if family.claims(value)), None)


def read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    calls: dict[Any, list[Unit]] = {}
    for unit in units:
        entries = list_at(dict_at(unit.value.get("log"), unit.at("log"), "log").get("entries"), unit.at("log", "entries"), "entries")
        for i, entry in enumerate(entries):
            call = _call(entry, unit.at("log", "entries", i), unit.line, reading)
            vendor = vendor_of(call.value) if call is not None else None
            if vendor is None:
                continue
            if not _holds_a_question(call.value):
                reading.warn(unit.line, call.field, f"a response of {vendor.NAME} without the request that asked it (a poll, "
                             "a GET): passed over")
                continue
            calls.setdefault(vendor, []).append(call)
    if not calls:
        if not reading.errors:  # a body refused already says what is wrong
            reading.error(0, None, "a HAR capture without a call of an API this app reads (OpenAI, Anthropic, Gemini, Perplexity)")
        return
    for vendor, vendor_calls in calls.items():
        vendor.read(vendor_calls, reading, emit)


def _holds_a_question(value: Any) -> bool:
    """A call with its request, or a conversation's items (``GET /conversations/{id}/items``)."""
    return isinstance(value, list) or (isinstance(value, dict) and ("request" in value or value.get("object") == "list"))


def _call(entry: Any, where: str, line: int, reading: Reading) -> Unit | None:
    """The entry as a logged call ``{"request": body, "response": body}`` (or the response
    alone when nothing was posted), or None when its response is no JSON or stream."""
    if not isinstance(entry, dict):
        return None
    response = _body(entry.get("response"), join(where, "response.content"), line, reading)
    if response is None:
        return None
    request = entry.get("request")
    post = request.get("postData") if isinstance(request, dict) else None
    sent = (_json(post["text"], join(where, "request"), line, reading)
            if isinstance(post, dict) and isinstance(post.get("text"), str) else None)
    return Unit({"request": sent, "response": response} if isinstance(sent, dict) else response, line, where)


def _body(response: Any, where: str, line: int, reading: Reading) -> Any:
    content = response.get("content") if isinstance(response, dict) else None
    if not isinstance(content, dict) or not isinstance(content.get("text"), str) or not content["text"].strip():
        return None
    text = content["text"]
    if content.get("encoding") == "base64":
        try:
            text = base64.b64decode(text, validate=False).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            reading.warn(line, join(where, "text"), "a base64 body that is no UTF-8 text: skipped")
            return None
    if "event-stream" in str(content.get("mimeType") or "") or looks_like_events(text):
        body, problems = assemble(text)
        for event_line, problem in problems:
            reading.warn(line, join(where, "text"), f"line {event_line} of the stream: {problem}")
        return body
    value = _json(text, where.removesuffix(".content"), line, reading)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return assemble_chunks(value) or value  # Gemini's streamGenerateContent without alt=sse
    return value


def _json(text: str, where: str, line: int, reading: Reading) -> Any:
    """A body's JSON, None when it is none; one holding a lone surrogate refuses the capture, at
    the body's field (``log.entries[4].request.messages[0].content``)."""
    try:
        return loads_json(text)
    except LoneSurrogate as bad:
        reading.error(line, where + bad.path.removeprefix("$"), LoneSurrogate.REASON)
        return None
    except ValueError:
        return None


def read_stream(text: str, reading: Reading, emit: Callable[[ParsedConversation], object]) -> str | None:
    """A plain event-stream file: recognised (the vendor's NAME, for the message) and refused,
    since the question it answers is not in it (NO_QUESTION); None when it is no vendor's stream."""
    body, problems = assemble(text)
    for line, problem in problems:
        reading.warn(line, None, problem)
    vendor = vendor_of({"request": {}, "response": body}) if body is not None else None
    if vendor is None:
        reading.error(0, None, "an event stream of no API this app reads (OpenAI, Anthropic, Gemini, Perplexity)")
        return None
    reading.error(1, None, NO_QUESTION)
    return vendor.NAME
