"""Shared set-up for the no-lost-work tests: a campaign, two annotators on one conversation,
and `race`, which runs callables in real threads (each with its own database connection)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest
from django.db import connection, connections

from annotator.models import AttributeSet, Grade
from tests.factories import make_campaign, make_conversation, make_user

TURNS = [
    ("U", "Recommend some time travel movies please"),
    ("S", "Back to the Future (1985): https://www.imdb.com/title/tt0088763/ is a classic. "
          "Primer (2004): https://www.imdb.com/title/tt0390384/ is harder. "
          "Looper (2012): https://www.imdb.com/title/tt1276104/ has Bruce Willis."),
    ("U", "More please"),
    ("S", "Again Primer (2004): https://www.imdb.com/title/tt0390384/ and Arrival (2016): "
          "https://www.imdb.com/title/tt2543164/ and Tenet (2020): https://www.imdb.com/title/tt6723592/ ."),
]


@dataclass
class World:
    campaign: object
    conversation: object
    alice: object
    bob: object
    organiser: object

    def turn(self, position: int):
        return self.conversation.turns.get(position=position)

    def grade(self, label: str):
        return Grade.objects.get(campaign=self.campaign, label=label)

    def attribute_set(self, name: str):
        return AttributeSet.objects.get(topic_type=self.conversation.topic.topic_type, name=name)


@pytest.fixture
def world(db) -> World:
    organiser = make_user("olga")
    alice, bob = make_user("alice"), make_user("bob")
    campaign = make_campaign(organiser=organiser)
    conversation = make_conversation(campaign, TURNS, annotators=[alice, bob])
    return World(campaign, conversation, alice, bob, organiser)


@dataclass
class Outcome:
    value: object = None
    error: BaseException | None = None


def race(*jobs, timeout: float = 60) -> list[Outcome]:
    """Run the jobs at the same moment in threads; each gets its own connection, closed after."""
    barrier = threading.Barrier(len(jobs))
    outcomes = [Outcome() for _ in jobs]

    def run(index: int, job) -> None:
        try:
            barrier.wait(timeout=timeout)
            outcomes[index].value = job()
        except BaseException as error:  # reported to the test, which decides
            outcomes[index].error = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, job), daemon=True) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
        assert not thread.is_alive(), "a racing save hung (deadlock or lock wait without timeout)"
    return outcomes


@pytest.fixture
def vendor() -> str:
    return connection.vendor
