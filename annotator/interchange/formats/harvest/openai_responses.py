"""OpenAI Responses: a conversation's items (``GET /conversations/{id}/items``: ``{"object":
"list", "data": [...]}``, newest first by default, or oldest first), a bare list of items, or
a log of ``{"request": ..., "response": ...}`` calls (``request.input`` is the user's side,
``response.output`` the system's; ``previous_response_id`` chains calls).

Items: ``message`` (role, ``content[]`` of ``input_text`` / ``output_text`` parts) are turns;
``web_search_call``, ``reasoning``, function calls and their outputs are not. Citations:
``output_text.annotations[] = {"type": "url_citation", "start_index", "end_index", "url",
"title"}`` -- flat, indexing into that part's text (unit checked as for Chat Completions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..model import ParsedConversation
from .common import (
    objects_in,
    optional_list,
    Bad,
    Call,
    Message,
    Reading,
    Unit,
    conversation,
    dict_at,
    join,
    list_at,
    read_units,
    request_and_response,
    shown,
    strip_reasoning,
)
from .openai_chat import url_citation

NAME = "OpenAI Responses"
SUPPORTED = "OpenAI Responses (conversation items, or request/response logs)"

ROLES = {"user": "U", "assistant": "S"}
TEXT_PARTS = ("input_text", "output_text", "text", "refusal")
ITEM_TYPES = {"message", "web_search_call", "reasoning", "function_call", "function_call_output", "file_search_call",
              "computer_call", "computer_call_output", "code_interpreter_call", "image_generation_call", "mcp_call",
              "mcp_list_tools", "local_shell_call", "custom_tool_call", "custom_tool_call_output", "item_reference"}


def is_item_list(value: Any) -> bool:
    return (isinstance(value, list) and bool(value) and all(isinstance(i, dict) for i in value)
            and any(i.get("type") in ITEM_TYPES - {"message"} or _has_parts(i) for i in value))


def _has_parts(item: dict) -> bool:
    content = item.get("content")
    return isinstance(content, list) and any(isinstance(p, dict) and p.get("type") in ("input_text", "output_text") for p in content)


def claims(value: Any) -> bool:
    if isinstance(value, dict):
        if "request" in value and "response" in value:
            response = value["response"]
            return isinstance(response, dict) and (response.get("object") == "response" or "output" in response)
        if value.get("object") == "list" and isinstance(value.get("data"), list):
            return True
        return value.get("object") == "response" and "output" in value
    return is_item_list(value)


def read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    read_units(units, reading, emit, call=_call, single=_conversation)


def _conversation(unit: Unit, reading: Reading) -> ParsedConversation | None:
    value = unit.value
    if isinstance(value, dict) and value.get("object") == "response":
        raise Bad(unit.field, "a Response holds only the system's answer: give its request too "
                  '({"request": ..., "response": ...} per line) or the conversation\'s items')
    if isinstance(value, dict):
        items, where = list_at(value.get("data"), unit.at("data"), "data, the conversation's items"), unit.at("data")
        if value.get("has_more"):
            reading.warn(unit.line, unit.at("has_more"), "the list says has_more: the items after it are not in the file")
    else:
        items, where = value, unit.field
    order = _in_order(items)
    messages = [m for i in order if (m := item_message(items[i], join(where, i), reading, unit.line))]
    return conversation(messages, reading, unit.line, unit.field)


def _in_order(items: list) -> list[int]:
    """Indexes of the items oldest first. Items carry no time; a listing is newest first by
    default: a list whose last message is the user's and first the system's is reversed, and
    so is one where each tool or reasoning item follows (rather than precedes) its answer."""
    indexes = list(range(len(items)))
    roles = [(i, it.get("role")) for i, it in enumerate(items)
             if isinstance(it, dict) and it.get("type", "message") == "message" and it.get("role") in ROLES]
    if not roles:
        return indexes
    first, last = roles[0][1], roles[-1][1]
    if first != last:
        return indexes if first == "user" else indexes[::-1]
    votes = 0
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("type") in ("web_search_call", "reasoning"):
            following = next((role for j, role in roles if j > i), None)
            votes += 1 if following == "assistant" else -1 if following == "user" else 0
    return indexes if votes >= 0 else indexes[::-1]


def _call(unit: Unit, reading: Reading) -> Call:
    request, response = request_and_response(unit)
    given = request.get("input")
    if isinstance(given, str):
        history = [Message("U", given, unit.at("request", "input"), unit.line)]
    else:
        history = shown(given, unit.at("request", "input"), item_message, reading, unit.line)
    answers = shown(response.get("output"), unit.at("response", "output"), item_message, reading, unit.line)
    answer = answers[0] if answers else None
    for extra in answers[1:]:
        shift = len(answer.text) + 2
        answer.text += "\n\n" + extra.text
        for c in extra.cites:
            c.start, c.end = c.start + shift, c.end + shift
            answer.cites.append(c)
    previous = request.get("previous_response_id")
    return Call(unit, history, answer, response.get("id"), previous if isinstance(previous, str) else None)


def item_message(item: Any, where: str, reading: Reading, line: int) -> Message | None:
    """A user or assistant message item as shown (its output_text citations with it); None for
    every other item."""
    item = dict_at(item, where, "an item")
    if item.get("type", "message") != "message" or item.get("role") not in ROLES:
        return None
    role = ROLES[item["role"]]
    content = item.get("content")
    if isinstance(content, str):
        return Message(role, content, where, line)
    parts = list_at(content, join(where, "content"), "content parts")
    message = Message(role, "", where, line)
    for i, part in enumerate(parts):
        if not isinstance(part, dict) or part.get("type") not in TEXT_PARTS:
            continue
        text = part.get("refusal") if part.get("type") == "refusal" else part.get("text")
        if not isinstance(text, str):
            raise Bad(join(join(where, "content"), i), "a text part without its text")
        offset = len(message.text) + 2 if message.text else 0
        message.text = f"{message.text}\n\n{text}" if message.text else text
        listed = join(join(join(where, "content"), i), "annotations")
        for _j, annotation, at in objects_in(optional_list(part.get("annotations"), listed, "annotations", reading, line),
                                             listed, "an annotation", reading, line):
            if annotation.get("type") == "url_citation":
                cite = url_citation(text, annotation, at, reading, line, offset)
                if cite is not None:
                    message.cites.append(cite)
    if role == "S":
        strip_reasoning(message)
    return message
