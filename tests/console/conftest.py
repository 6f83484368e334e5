"""Fixtures of the console tests: a demo-like campaign and a client logged in as each role."""

import pytest
from django.test import Client

from tests.console.demo import build_demo
from tests.factories import make_campaign, make_user


@pytest.fixture
def demo(db):
    """(campaign, organiser, [ann, bob]): 2 topics x 3 runs, some conversations judged twice."""
    return build_demo(n_topics=2)


@pytest.fixture
def campaign(demo):
    return demo[0]


@pytest.fixture
def client_as(demo):
    """client_as(role): a client that is anonymous, the annotator ann, the organiser of another
    campaign, or this campaign's organiser."""

    def _client(role: str) -> Client:
        client = Client()
        if role == "anonymous":
            return client
        if role == "annotator":
            client.force_login(demo[2][0])
        elif role == "other organiser":
            client.force_login(_other_organiser())
        elif role == "organiser":
            client.force_login(demo[1])
        else:
            raise ValueError(role)
        return client

    return _client


@pytest.fixture
def organiser(client_as):
    return client_as("organiser")


def assert_only_the_organiser_gets_in(client_as, url: str, method: str = "get", data=None) -> None:
    """Anonymous -> login redirect; annotator and another campaign's organiser -> 404."""
    anonymous = getattr(client_as("anonymous"), method)(url, data or {})
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    for role in ("annotator", "other organiser"):
        response = getattr(client_as(role), method)(url, data or {})
        assert response.status_code == 404, role


def _other_organiser():
    from django.contrib.auth import get_user_model

    existing = get_user_model().objects.filter(username="other-org").first()
    if existing is not None:
        return existing
    other = make_user("other-org")
    make_campaign("other", organiser=other)
    return other


@pytest.fixture
def with_second_trial(demo):
    """The demo plus bing-trial2 on M001 and M002 (no nuggets yet: every score 0), so system
    bing has two trials of two topics."""
    from tests.factories import make_conversation

    campaign, _organiser, (ann, _bob) = demo
    turns = [("U", "Please list sci-fi movies that feature time travel."), ("S", "<b>Nothing</b> comes to mind."),
             ("U", "Any?"), ("S", "Sorry.")]
    return [make_conversation(campaign, turns, topic=topic, run="bing-trial2", annotators=[ann]) for topic in ("M001", "M002")]
