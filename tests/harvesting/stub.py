"""What the loopback stub server (tests/llm_judge/fake_server.py) answers in the harvest tests:
a search model's answers with `url_citation` annotations (OpenAI Chat Completions) or with
Perplexity's `search_results` and [n] markers, which movies depending on the turn."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings

from annotator.models import Topic, TopicType
from tests.factories import make_campaign, make_user
from tests.llm_judge.fake_server import FakeServer, Reply


def turn_of(body: dict) -> int:
    """Which system turn a request asks for: the number of user messages in it."""
    return sum(1 for m in body["messages"] if m["role"] == "user")


def film(body: dict, i: int) -> tuple[str, str]:
    n = turn_of(body)
    return f"Film {n}{i} (200{i})", f"https://www.imdb.com/title/tt99{n}{i}0001/"


def cited(body: dict) -> Reply:
    """Two films a turn, each with its IMDb link cited by a url_citation annotation."""
    text, annotations = "Here are some:\n", []
    for i in range(2):
        title, url = film(body, i)
        link = f"([imdb.com]({url}?utm_source=openai))"
        text += f"- **{title}**, worth a look "
        annotations.append({"type": "url_citation", "url_citation": {
            "start_index": len(text), "end_index": len(text) + len(link), "url": url + "?utm_source=openai",
            "title": f"{title} - IMDb"}})
        text += link + "\n"
    return Reply(content=text, annotations=tuple(annotations), model=body["model"] + "-2025-01-01")


def perplexity(body: dict) -> Reply:
    """Perplexity's shape: [n] markers into the response's search_results."""
    films = [film(body, i) for i in range(2)]
    text = "Based on my search:\n" + "\n".join(f"{title} [{i + 1}]" for i, (title, _url) in enumerate(films))
    return Reply(content=text, extra={"search_results": [{"title": f"{t} - IMDb", "url": u} for t, u in films]})


def list_server(server: FakeServer | str, name: str = "stub", **spec) -> None:
    """List the server for the deployment, as an administrator does (GFRC_LLM_SERVERS)."""
    base = server if isinstance(server, str) else server.base_url
    django_settings.GFRC_LLM_SERVERS = {**django_settings.GFRC_LLM_SERVERS, name: {"base_url": base, **spec}}


@pytest.fixture
def campaign():
    """A campaign with two movie topics, its organiser "org"."""
    campaign = make_campaign("fw", organiser=make_user("org"))
    movies = TopicType.objects.get(campaign=campaign, code="M")
    Topic.objects.create(campaign=campaign, topic_type=movies, code="M001", description="heist movies, listed in IMDb")
    Topic.objects.create(campaign=campaign, topic_type=movies, code="M002",
                         description="sci-fi movies that feature time travel, listed in IMDb.")
    return campaign


@pytest.fixture(autouse=True)
def no_servers_listed(settings):
    """Each test lists its stub server itself; nothing is listed otherwise."""
    settings.GFRC_LLM_SERVERS = {}
