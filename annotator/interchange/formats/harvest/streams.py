"""Streamed answers put back together: a ``text/event-stream`` body (Server-Sent Events, as
browsers and HAR captures save them: ``event:`` / ``data:`` lines, a blank line after each
event; html.spec.whatwg.org "Server-sent events") or Gemini's streamGenerateContent JSON
array of chunks, assembled into the response body the vendor's non-streaming call returns, so
the readers of harvest/ read it unchanged.

- OpenAI Chat Completions (and Perplexity, which streams the same chunks):
  ``chat.completion.chunk`` events, ``choices[0].delta.content`` appended, ``delta.annotations``
  (url_citation, offsets into the whole answer) collected, the last ``citations`` /
  ``search_results`` kept; ``data: [DONE]`` ends it.
- OpenAI Responses: ``response.*`` events; the ``response`` of ``response.completed`` (or the
  last one seen, its output taken from the ``response.output_item.done`` items when empty).
- Anthropic Messages: ``message_start`` (the message), ``content_block_start`` (a block),
  ``content_block_delta`` (``text_delta`` appended to its block, ``citations_delta`` its
  ``citation`` added to the block's citations; ``input_json_delta``, ``thinking_delta`` and
  ``signature_delta`` are not shown), ``message_delta`` / ``message_stop``.
- Gemini ``streamGenerateContent`` (``alt=sse`` events or a JSON array): each chunk's
  ``candidates[0].content.parts`` text appended into one part, the last ``groundingMetadata``
  kept (its segments are checked against their text, so offsets of another part still find
  their words).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["looks_like_events", "events", "assemble", "assemble_chunks"]


def looks_like_events(text: str) -> bool:
    """Is this the body of an event stream (its first non-blank line a field or a comment)?"""
    first = text.lstrip().split("\n", 1)[0]
    return first.startswith(("data:", "event:", "id:", "retry:", ":"))


def events(text: str) -> list[tuple[str, str, int]]:
    """(event name, data, line of its first field) of each event of an event stream."""
    found: list[tuple[str, str, int]] = []
    name, data, start = "message", [], 0
    for no, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        if not raw:
            if data:
                found.append((name, "\n".join(data), start))
            name, data, start = "message", [], 0
            continue
        if raw.startswith(":"):
            continue
        field, _, value = raw.partition(":")
        value = value.removeprefix(" ")
        start = start or no
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
    if data:
        found.append((name, "\n".join(data), start))
    return found


def assemble(text: str) -> tuple[dict | None, list[tuple[int, str]]]:
    """The response body an event stream gives, or None when it is no vendor's stream; with
    the (line, problem) of each event whose data is not JSON."""
    found = [(data, line) for _name, data, line in events(text) if data.strip() != "[DONE]"]
    problems: list[tuple[int, str]] = []
    try:  # one decoding of all the events (a stream has one per token), checked to be one value each
        values = json.loads("[" + ",".join(data for data, _ in found) + "]")
        if len(values) != len(found):
            raise ValueError("an event's data is not one JSON value")
    except (ValueError, RecursionError):
        values = []
        for data, line in found:
            try:
                values.append(json.loads(data))
            except (ValueError, RecursionError):
                problems.append((line, "an event whose data is not JSON: skipped"))
    chunks = [value for value in values if isinstance(value, dict)]
    return assemble_chunks(chunks), problems


def assemble_chunks(chunks: list[dict]) -> dict | None:
    """The response body that these streamed chunks (decoded event data) make up."""
    if any(c.get("type") == "message_start" for c in chunks):
        return _anthropic(chunks)
    if any(isinstance(c.get("type"), str) and c["type"].startswith("response.") for c in chunks):
        return _responses(chunks)
    if any(c.get("object") == "chat.completion.chunk" for c in chunks):
        return _chat(chunks)
    if any("candidates" in c for c in chunks):
        return _gemini(chunks)
    return None


def _chat(chunks: list[dict]) -> dict:
    content: list[str] = []
    annotations: list[Any] = []
    body: dict[str, Any] = {"object": "chat.completion"}
    for chunk in chunks:
        for key in ("id", "model", "created", "citations", "search_results"):
            if key in chunk:
                body[key] = chunk[key]
        choices = chunk.get("choices")
        delta = choices[0].get("delta") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
        if not isinstance(delta, dict):
            continue
        if isinstance(delta.get("content"), str):
            content.append(delta["content"])
        if isinstance(delta.get("annotations"), list):
            annotations.extend(delta["annotations"])
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content)}
    if annotations:
        message["annotations"] = annotations
    body["choices"] = [{"index": 0, "message": message}]
    return body


def _responses(chunks: list[dict]) -> dict:
    response: dict[str, Any] = {"object": "response", "output": []}
    done_items: list[Any] = []
    for chunk in chunks:
        if isinstance(chunk.get("response"), dict):
            response = chunk["response"]
        if chunk.get("type") == "response.output_item.done" and isinstance(chunk.get("item"), dict):
            done_items.append(chunk["item"])
    if not response.get("output") and done_items:
        response = {**response, "output": done_items}
    return response


def _anthropic(chunks: list[dict]) -> dict:
    message: dict[str, Any] = {"type": "message", "role": "assistant"}
    blocks: dict[int, dict] = {}
    for chunk in chunks:
        kind = chunk.get("type")
        if kind == "message_start" and isinstance(chunk.get("message"), dict):
            message = {**chunk["message"], "content": []}
        elif kind == "content_block_start" and isinstance(chunk.get("content_block"), dict):
            block = dict(chunk["content_block"])
            if block.get("type") == "text":
                block["text"] = block.get("text") or ""
                block["citations"] = list(block.get("citations") or [])
            blocks[_index(chunk, blocks)] = block
        elif kind == "content_block_delta" and isinstance(chunk.get("delta"), dict):
            block = blocks.setdefault(_index(chunk, blocks), {"type": "text", "text": "", "citations": []})
            delta = chunk["delta"]
            if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str) and block.get("type") == "text":
                block["text"] += delta["text"]
            elif delta.get("type") == "citations_delta" and block.get("type") == "text":
                block["citations"].append(delta.get("citation"))
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message


def _index(chunk: dict, blocks: dict) -> int:
    index = chunk.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else len(blocks)


def _gemini(chunks: list[dict]) -> dict:
    text: list[str] = []
    candidate: dict[str, Any] = {}
    body: dict[str, Any] = {}
    for chunk in chunks:
        for key in ("modelVersion", "model_version", "responseId", "response_id", "usageMetadata", "usage_metadata"):
            if key in chunk:
                body[key] = chunk[key]
        candidates = chunk.get("candidates")
        first = candidates[0] if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict) else None
        if first is None:
            continue
        content = first.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
                text.append(part["text"])
        for key in ("groundingMetadata", "grounding_metadata", "finishReason", "finish_reason"):
            if first.get(key):
                candidate[key] = first[key]
    candidate["content"] = {"role": "model", "parts": [{"text": "".join(text)}]}
    body["candidates"] = [candidate]
    return body
