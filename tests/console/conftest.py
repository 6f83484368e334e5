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


def import_a_tree_and_its_paths(campaign, annotator) -> tuple[str, dict[str, object]]:
    """A branching conversation (run tree-trial1, paths of probability 0.7 and 0.3) and each of
    its two paths as a linear conversation of its own (runs patha-trial1, pathb-trial1), judged
    by `annotator`: its topic and the linear ones' scores by run."""
    import json

    from annotator.interchange.imports.conversations import import_files
    from annotator.models import Conversation
    from annotator.scores.per_conversation import score_conversation
    from tests.scores.test_conversation_trees_scored import path_line, tree_line

    topic = Conversation.objects.filter(topic__campaign=campaign).first().topic.code
    tree = dict(tree_line(), topic=topic, run="tree-trial1")
    lines = [tree, path_line(tree, ["u1", "a", "u2a", "s2a"], "patha-trial1"),
             path_line(tree, ["u1", "b", "u2b", "s2b"], "pathb-trial1")]
    result = import_files(campaign, [("t.jsonl", "".join(json.dumps(line) + "\n" for line in lines).encode())],
                          annotator=annotator)
    assert not result.errors, result.errors
    return topic, {run: score_conversation(Conversation.objects.get(topic__campaign=campaign, run__name=run), annotator)
                   for run in ("patha-trial1", "pathb-trial1")}
