"""One conversation held with a system, turn after turn: no database, safe in a thread.

Each request goes through the `openai` client of annotator.llm_judge.client (`make_client`):
its timeout per attempt, and its retries with exponential backoff and jitter on connection
errors, timeouts, 408, 409, 429 and 5xx answers (`retries` more attempts, 0.5 s doubling up to
8 s, or what the server's Retry-After says); redirects are never followed. A request that
still fails ends the conversation with a `ServerError` saying what happened (never the key),
and nothing of it is kept: the runner reports it and stores nothing.

The raw body of each answer is kept as the server sent it (the provenance, and the log the
importer reads: the systems' citations are in fields the client's types do not know).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from annotator.harvesting.protocol import TopicAsked, answer_content, follow_up, log_of, usage, user_request
from annotator.llm_judge.client import ServerError, ServerSettings, server_error

if TYPE_CHECKING:
    import openai

__all__ = ["Asker", "Said", "Held", "Stopped", "hold", "chat"]


class Stopped(Exception):
    """The harvest was cancelled between two turns: the conversation is abandoned."""


@dataclass(frozen=True)
class Asker:
    """A model on a listed server, with its client."""

    settings: ServerSettings
    client: openai.OpenAI

    def parameters(self) -> dict:
        s = self.settings
        return {"temperature": s.temperature, "seed": s.seed, "max_tokens": s.max_tokens, "timeout": s.timeout,
                "retries": s.retries}


@dataclass(frozen=True)
class Said:
    """One turn a model wrote, with where it came from."""

    role: str  # "S": the system's answer; "U": a simulated user's follow-up
    number: int
    content: str
    server: str
    model: str
    model_answered: str
    parameters: dict
    requested_at: datetime
    answered_at: datetime
    prompt_tokens: int
    completion_tokens: int
    raw: str  # the response body as sent


@dataclass
class Held:
    topic: str
    run: str
    trial: int
    said: list[Said] = field(default_factory=list)
    calls: list[tuple[dict, dict]] = field(default_factory=list)  # the system's (request, response) pairs

    def log(self) -> bytes:
        return log_of(self.calls)


def chat(asker: Asker, messages: list[dict], role: str, number: int) -> tuple[Said, dict, dict]:
    """Ask once (the client retrying as said above): the turn said, the request sent and the
    answer's JSON. ServerError when no usable answer came."""
    import openai  # loaded by make_client already

    s = asker.settings
    request = {"model": s.model, "messages": [dict(m) for m in messages], "temperature": s.temperature,
               "max_tokens": s.max_tokens, **({"seed": s.seed} if s.seed is not None else {})}
    requested_at = datetime.now(UTC)
    try:
        raw = asker.client.chat.completions.with_raw_response.create(**request)
        body = raw.http_response.text
    except openai.OpenAIError as error:
        raise server_error(error, s) from error
    answered_at = datetime.now(UTC)
    try:
        data = json.loads(body)
    except ValueError:
        raise ServerError(f"the server answered something that is not JSON ({len(body)} characters)") from None
    content = answer_content(data)
    if content is None or not content.strip():
        raise ServerError("the server answered without content")
    prompt_tokens, completion_tokens = usage(data)
    model_answered = data.get("model") if isinstance(data.get("model"), str) else ""
    said = Said(role, number, content, s.server, s.model, model_answered[:200], asker.parameters(), requested_at,
                answered_at, prompt_tokens, completion_tokens, body)
    return said, request, data


def hold(topic: TopicAsked, run: str, trial: int, first: str, follow_ups: Sequence[str], answering: Asker, *,
         user: Asker | None = None, user_prompt: str = "", system_message: str = "",
         stopped: Callable[[], bool] = lambda: False) -> Held:
    """The conversation: `first`, then each follow-up (written by `user`, a simulated user,
    when given: as many as `follow_ups`), each answered by `answering` (the system) with the conversation so
    far. ServerError when the system (or the simulated user) gave no usable answer; Stopped
    when `stopped()` says so between turns. `system_message`: sent first in every request when
    given (the simulated user reads the conversation without it)."""
    held = Held(topic.code, run, trial)
    messages: list[dict] = [{"role": "user", "content": first}]
    system = [{"role": "system", "content": system_message}] if system_message else []
    for k in range(1 + len(follow_ups)):
        if k:
            if stopped():
                raise Stopped
            if user is not None:
                written, _request, _data = chat(user, user_request(user_prompt, topic, messages), "U", k + 1)
                held.said.append(written)
                text = written.content.strip()
            else:
                text = follow_up(follow_ups[k - 1], topic)
            messages.append({"role": "user", "content": text})
        said, request, data = chat(answering, system + messages, "S", k + 1)
        held.said.append(said)
        held.calls.append((request, data))
        messages.append({"role": "assistant", "content": said.content})
    return held
