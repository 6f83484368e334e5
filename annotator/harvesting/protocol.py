"""What a harvest asks, in what order, and the log a held conversation is written as. Pure
Python (no Django).

The paper's protocol (Sakai, EVIA 2023), a campaign's settings by default
(annotator.rules.campaign_settings): the first user turn from the topic type's template,
``Please list up {description}.`` then the format line the type asks for; then each follow-up
in turn (``Can you name a few more?``), each sent with the whole conversation so far (a chat
API keeps no state). A simulated user instead writes each follow-up: a second model is asked,
with the campaign's prompt, for the next message given the topic and the conversation so far.

A held conversation is written as a request/response log, one call a line
(``{"request": {"model", "messages", ...}, "response": <the raw answer>}``): the shape the
harvest readers already know (annotator.interchange.formats.harvest: OpenAI Chat Completions
with ``url_citation`` annotations, Perplexity's ``citations`` / ``search_results``), so a
harvest is imported as the same log uploaded would be.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from annotator.rules.campaign_settings import PAPER_FIRST_TURN

__all__ = ["TopicAsked", "first_turn", "follow_up", "user_request", "transcript", "answer_content", "usage", "log_of",
           "run_name"]


@dataclass(frozen=True)
class TopicAsked:
    code: str
    description: str
    type_code: str
    type_name: str = ""

    def fields(self) -> dict[str, str]:
        """What a template may name: {topic}, {description} (without a closing full stop: the
        template has its own), {type}."""
        return {"topic": self.code, "description": self.description.strip().rstrip(".").strip(),
                "type": self.type_name or self.type_code}


def run_name(system: str, trial: int) -> str:
    """The run of a system's trial, as the campaign file names it."""
    return f"{system}-trial{trial}"


def first_turn(templates: Mapping[str, str], topic: TopicAsked) -> str:
    """The first user turn: the topic type's template (the paper's when it has none)."""
    return (templates.get(topic.type_code) or PAPER_FIRST_TURN).format(**topic.fields())


def follow_up(template: str, topic: TopicAsked) -> str:
    return template.format(**topic.fields())


def transcript(messages: Sequence[Mapping[str, str]]) -> str:
    """The conversation so far as a simulated user reads it."""
    said = {"user": "User", "assistant": "System"}
    return "\n\n".join(f"{said.get(m['role'], m['role'])}: {m['content']}" for m in messages)


def user_request(prompt: str, topic: TopicAsked, messages: Sequence[Mapping[str, str]]) -> list[dict]:
    """The simulated user's request: the campaign's prompt with the topic and the conversation."""
    return [{"role": "user", "content": prompt.format(**topic.fields(), conversation=transcript(messages))}]


def answer_content(response: object) -> str | None:
    """The text of a chat completion's first choice; None when it has none."""
    if not isinstance(response, dict):
        return None
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None


def usage(response: Mapping) -> tuple[int, int]:
    """(prompt tokens, completion tokens) the answer says it used (0 when it says nothing)."""
    counts = response.get("usage") if isinstance(response.get("usage"), dict) else {}

    def count(key: str) -> int:
        value = counts.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

    return count("prompt_tokens"), count("completion_tokens")


def log_of(calls: Sequence[tuple[Mapping, Mapping]]) -> bytes:
    """The JSONL request/response log of a held conversation's calls ((request, response) pairs)."""
    return "".join(json.dumps({"request": request, "response": response}, ensure_ascii=False) + "\n"
                   for request, response in calls).encode()
