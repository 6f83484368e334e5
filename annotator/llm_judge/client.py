"""One request to an OpenAI-compatible server, and the database cache of the answers.

Requests go through the maintained `openai` client: its per-request timeout, and its retries
with exponential backoff and jitter (connection errors, timeouts, 408/409/429 and 5xx answers:
`retries` more attempts, 0.5 s doubling up to 8 s, or what the server's Retry-After says).
What still fails is a `ServerError` whose message says what happened, never the key.

The key comes from the environment when the client is made, from the variable the settings
name: the one the deployment lists for the server (annotator.llm_judge.servers), or a command
line's --key-variable; a local server (llama.cpp, vLLM, Ollama) needs none and gets a
placeholder. Redirects are not followed: the key would go with the request to an address
nobody listed.

An answer is cached (annotator.models.LlmAnswer) under the SHA-256 of the request: the
messages, the schema, the model, temperature, seed, token limit and response format, with the
server's name and address and the campaign that asks. The same request never reaches the server
twice; a run interrupted half-way resumes without asking again; one campaign never reads
another's answers, nor a server's answers those of another.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from annotator.models import LlmAnswer

if TYPE_CHECKING:
    import openai

__all__ = ["ServerSettings", "Answer", "ServerError", "server_error", "request_key", "make_client", "ask", "cached", "store",
           "RESPONSE_FORMATS", "NO_KEY"]

NO_KEY = "not-needed"  # what a local server gets when the environment holds no key
RESPONSE_FORMATS = ("json_object", "json_schema")
ERROR_SHOWN = 300  # characters of a server's error message kept in a report


@dataclass(frozen=True)
class ServerSettings:
    base_url: str
    model: str
    key_variable: str | None = "OPENAI_API_KEY"  # None: no key
    server: str = ""  # the deployment's name for it (annotator.llm_judge.servers); "": a command line's --base-url
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 1024
    timeout: float = 120.0  # seconds per request
    retries: int = 2
    # llama-cpp-python's server: {"type": "json_object", "schema": ...}; vLLM, Ollama and
    # vendors: {"type": "json_schema", "json_schema": {"name": ..., "schema": ...}}
    response_format: str = "json_object"


@dataclass(frozen=True)
class Answer:
    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool = False


class ServerError(Exception):
    """The server gave no usable answer (after the retries)."""


def _response_format(schema: dict, style: str) -> dict:
    if style == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "entities", "schema": schema, "strict": True}}
    return {"type": "json_object", "schema": schema}


def request_key(messages: list[dict], schema: dict, settings: ServerSettings, campaign_id: int | None) -> str:
    """The cache key: what the server is asked, by which model, with which parameters, which
    server (its name and address) and for which campaign."""
    request = {
        "messages": messages, "schema": schema, "model": settings.model, "temperature": settings.temperature,
        "seed": settings.seed, "max_tokens": settings.max_tokens, "response_format": settings.response_format,
        "server": settings.server, "base_url": settings.base_url, "campaign": campaign_id,
    }
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def make_client(settings: ServerSettings) -> openai.OpenAI:
    # Imported when a judge runs: the URLconf reaches this module, and `import openai` (its
    # pydantic types) would weigh on every server and command start (docs/benchmarks-history.md,
    # "Ranked-list runs").
    import openai

    key = os.environ.get(settings.key_variable) if settings.key_variable else None
    return openai.OpenAI(
        base_url=settings.base_url, api_key=key or NO_KEY, timeout=settings.timeout, max_retries=settings.retries,
        # a redirect would carry the key to an address nobody listed: never followed
        http_client=openai.DefaultHttpxClient(follow_redirects=False),
    )


def ask(client: openai.OpenAI, messages: list[dict], schema: dict, settings: ServerSettings) -> Answer:
    """Send one request (no database: safe in any thread)."""
    import openai  # loaded by make_client already

    started = time.monotonic()
    try:
        response = client.chat.completions.create(
            model=settings.model, messages=messages, temperature=settings.temperature, seed=settings.seed,
            max_tokens=settings.max_tokens, response_format=_response_format(schema, settings.response_format),
        )
    except openai.OpenAIError as error:
        raise server_error(error, settings) from error
    seconds = time.monotonic() - started
    choice = response.choices[0] if response.choices else None
    if choice is None or choice.message is None or choice.message.content is None:
        raise ServerError("the server answered without content")
    usage = response.usage
    return Answer(
        text=choice.message.content, finish_reason=choice.finish_reason or "",
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0, completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        seconds=seconds,
    )


def server_error(error: Exception, settings: ServerSettings) -> ServerError:
    """What an `openai` client's failure (after its retries) says, never the key: no answer in
    time, no server there, a redirect not followed, the status and message the server sent."""
    import openai  # loaded by make_client already

    if isinstance(error, openai.APITimeoutError):
        return ServerError(f"no answer within {settings.timeout:g} s ({1 + settings.retries} attempts)")
    if isinstance(error, openai.APIConnectionError):
        return ServerError(f"cannot reach the server at {settings.base_url} ({1 + settings.retries} attempts)")
    if isinstance(error, openai.APIStatusError):
        if 300 <= error.status_code < 400:
            to = _shown(error.response.headers.get("location", "") or "nowhere said")
            return ServerError(f"the server answered {error.status_code}, a redirect to {to}: not followed (the key "
                               "would go with it); list the address it points to instead")
        body = error.body if isinstance(error.body, dict) else {}
        message = body.get("message") if isinstance(body.get("message"), str) else error.message
        return ServerError(f"the server answered {error.status_code}: {_shown(message)}")
    return ServerError(f"unusable answer: {_shown(str(error))}")  # e.g. an answer that is not a chat completion


def _shown(message: str) -> str:
    message = " ".join(str(message).split())
    return message if len(message) <= ERROR_SHOWN else message[:ERROR_SHOWN - 1] + "…"


def cached(keys: list[str]) -> dict[str, Answer]:
    """The cached answers of these requests (one query per 500 keys)."""
    found: dict[str, Answer] = {}
    for i in range(0, len(keys), 500):
        for row in LlmAnswer.objects.filter(key__in=keys[i:i + 500]).values_list(
            "key", "text", "finish_reason", "prompt_tokens", "completion_tokens", "seconds"
        ):
            found[row[0]] = Answer(*row[1:], cached=True)
    return found


def store(key: str, answer: Answer, settings: ServerSettings, prompt_version: str, campaign_id: int | None) -> None:
    """Keep an answer at once (its own transaction): an interruption loses no answer received."""
    LlmAnswer.objects.update_or_create(key=key, defaults=dict(
        campaign_id=campaign_id, server=settings.server[:64], base_url=settings.base_url[:500],
        model=settings.model[:200], prompt_version=prompt_version, text=answer.text,
        finish_reason=answer.finish_reason[:20], prompt_tokens=answer.prompt_tokens,
        completion_tokens=answer.completion_tokens, seconds=answer.seconds,
    ))
