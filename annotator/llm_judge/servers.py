"""The LLM servers of the deployment: the only ones a run from the console, the API or the
worker ever talks to.

An administrator lists them in the environment (`GFRC_LLM_SERVERS`, config/settings.py):

    {"local": {"base_url": "http://127.0.0.1:8080/v1"},
     "vllm":  {"base_url": "http://gpu-host:8000/v1", "key_variable": "VLLM_KEY", "models": ["qwen2.5-7b"]}}

An organiser picks a server by its name and a model among its models (any model when the
listing names none); the address and the environment variable holding the key come from the
listing when the run starts, never from a page, a form, the API or the run's row. A run queued
for a server since removed, or for a model no longer offered, fails with that reason.

    server = listed("vllm", "qwen2.5-7b")           # ServerNotListed: why not
    settings = server.settings_for("qwen2.5-7b", temperature=0.0, ...)

`manage.py check` (and every server start) reports a malformed listing (`check_listing`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from annotator.llm_judge.client import ServerSettings
from annotator.rules.links import http_url

__all__ = ["ListedServer", "ServerNotListed", "listed_servers", "offered", "listed", "listing_problems", "check_listing",
           "NAME_PATTERN"]

NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
_VARIABLE_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
# the app's own secrets: a listing naming one as a server's key would send it to that server
_OWN_SECRETS = frozenset({"SECRET_KEY", "DATABASE_URL", "EMAIL_HOST_PASSWORD"})
_KEYS = frozenset({"base_url", "key_variable", "models"})


class ServerNotListed(ValueError):
    """The server (or the model) asked for is not among the deployment's."""


@dataclass(frozen=True)
class ListedServer:
    name: str
    base_url: str
    key_variable: str | None = None  # None: the server needs no key
    models: tuple[str, ...] = ()  # empty: any model

    def offers(self, model: str) -> bool:
        return not self.models or model in self.models

    def settings_for(self, model: str, **parameters) -> ServerSettings:
        """The request settings of a run on this server: its address and key variable, the model
        and the organiser's parameters (temperature, seed, token limit, timeout, format)."""
        return ServerSettings(server=self.name, base_url=self.base_url, key_variable=self.key_variable, model=model,
                              **parameters)


def listing_problems(raw: object) -> list[str]:
    """What is wrong with a GFRC_LLM_SERVERS value (parsed JSON), one line each."""
    if not isinstance(raw, dict):
        return ["GFRC_LLM_SERVERS is a JSON object of servers by name"]
    problems = []
    for name, spec in raw.items():
        where = f"GFRC_LLM_SERVERS[{name!r}]"
        if not isinstance(name, str) or not re.fullmatch(NAME_PATTERN, name):
            problems.append(f"{where}: a server's name is letters, digits and . _ - (at most 64)")
        if not isinstance(spec, dict):
            problems.append(f"{where}: an object with base_url (and optionally key_variable, models)")
            continue
        if unknown := sorted(set(spec) - _KEYS):
            problems.append(f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}")
        if http_url(spec.get("base_url")) is None:
            problems.append(f"{where}.base_url: an http(s) URL, e.g. http://127.0.0.1:8080/v1")
        variable = spec.get("key_variable")
        if variable is not None and (not isinstance(variable, str) or not _VARIABLE_RE.fullmatch(variable)):
            problems.append(f"{where}.key_variable: the name of an environment variable")
        elif variable in _OWN_SECRETS:
            problems.append(f"{where}.key_variable: {variable} is the app's own secret, never an LLM server's key")
        models = spec.get("models")
        if models is not None and (not isinstance(models, list) or not all(isinstance(m, str) and m.strip() for m in models)):
            problems.append(f"{where}.models: a list of model names")
    return problems


def listed_servers() -> dict[str, ListedServer]:
    """The deployment's servers by name, in the listing's order (ImproperlyConfigured when the
    listing is malformed: nothing of it is used then)."""
    raw = _raw_listing()
    if problems := listing_problems(raw):
        raise ImproperlyConfigured("; ".join(problems))
    return {
        name: ListedServer(name, spec["base_url"], spec.get("key_variable"), tuple(m.strip() for m in spec.get("models") or ()))
        for name, spec in raw.items()
    }


def offered() -> tuple[dict[str, ListedServer], str]:
    """The listed servers a form offers by name, and why there are none when the listing is
    malformed (then nothing of it is offered)."""
    try:
        return listed_servers(), ""
    except ImproperlyConfigured as malformed:
        return {}, str(malformed)


def listed(name: str, model: str | None = None) -> ListedServer:
    """The listed server `name` (offering `model`, when given), or ServerNotListed saying why."""
    try:
        servers = listed_servers()
    except ImproperlyConfigured as malformed:
        raise ServerNotListed(f"the deployment's list of LLM servers is malformed ({malformed})") from None
    server = servers.get(name) if name else None
    if server is None:
        names = ", ".join(servers) or "none"
        raise ServerNotListed(f"no LLM server named {name!r} is listed by the deployment (GFRC_LLM_SERVERS; listed: {names})")
    if model is not None and not server.offers(model):
        raise ServerNotListed(f"the server {name} does not offer the model {model!r} (its models: {', '.join(server.models)})")
    return server


@checks.register(checks.Tags.compatibility)
def check_listing(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """`manage.py check` and every server start: the listing's problems, each an error."""
    return [checks.Error(problem, id="annotator.E001") for problem in listing_problems(_raw_listing())]


def _raw_listing() -> object:
    raw = getattr(settings, "GFRC_LLM_SERVERS", None)
    return {} if raw is None else raw
