"""Shared set-up for the workspace view tests: the paper's M002 Bing conversation, assigned
to an annotator, with or without its ten nuggets (built through the business rules)."""

from __future__ import annotations

import pytest

from annotator.interchange.formats import ParsedCitation, ParsedConversation, ParsedTurn, ParseResult
from annotator.interchange.imports.conversations import import_parsed
from annotator.models import Campaign, Conversation
from tests.factories import make_campaign, make_conversation, make_user, mark
from tests.scores.test_scores import paper_example


def build_paper(annotated: bool = True, *, username: str = "ann", campaign=None):
    annotator = make_user(username)
    campaign = campaign or make_campaign()
    turns, nuggets = paper_example()
    conversation = make_conversation(campaign, turns, annotators=[annotator])
    if annotated:
        for n in nuggets:
            mark(conversation, annotator, n["turn"], n["start"], n["end"], n["grade"], n["memberships"])
    return conversation, annotator, nuggets


@pytest.fixture
def paper(db):
    """(conversation, annotator, nugget specs): the annotated paper example."""
    return build_paper(annotated=True)


@pytest.fixture
def bare_paper(db):
    """The paper example with no judgments yet."""
    return build_paper(annotated=False)


@pytest.fixture
def as_user(client):
    def _login(user):
        client.force_login(user)
        return client

    return _login


def build_list(n_nuggets: int, *, username: str = "lister", per_turn: int = 30, campaign=None):
    """A long list answer: ceil(n / per_turn) system turns of `per_turn` URL lines each, every
    line marked, graded and given both memberships (through the business rules)."""
    annotator = make_user(username)
    campaign = campaign or make_campaign(slug=f"list{n_nuggets}")
    turns = []
    for t in range((n_nuggets + per_turn - 1) // per_turn):
        turns.append(("U", f"Please list {per_turn} more time-travel movies with their IMDb URLs."))
        count = min(per_turn, n_nuggets - t * per_turn)
        lines = ["Here are some more:"] + [
            f"Movie {t * per_turn + i} ({1950 + i}): https://www.imdb.com/title/tt{t * per_turn + i:07d}/"
            for i in range(count)
        ]
        turns.append(("S", "\n".join(lines)))
    conversation = make_conversation(campaign, turns, topic="M900", run=f"list-{n_nuggets}", annotators=[annotator])
    for position in range(2, len(turns) + 1, 2):
        turn = conversation.turns.get(position=position)
        start = 4  # "Here are some more:"
        for line in turn.text.splitlines()[1:]:
            words = len(line.split())
            mark(conversation, annotator, position, start, start + words - 1, "L2",
                 {"RATINGS": [0, 0, 1, 0], "ORIGIN": [0, 0.5, 0, 0, 0, 0.5, 0, 0]})
            start += words
    return conversation, annotator


HTMX = {"HX-Request": "true"}


def line_span(conversation, position: int, needle: str) -> tuple[int, int, int]:
    """(turn id, first word, last word) of the line of turn `position` that contains `needle`."""
    turn = conversation.turns.get(position=position)
    start = 0
    for line in turn.text.splitlines():
        words = line.split()
        if needle in line:
            return turn.pk, start, start + len(words) - 1
        start += len(words)
    raise AssertionError(f"{needle!r} is not in turn {position}")


def changed(response) -> bool:
    """The answer says judgments changed and carries the refreshed score out of band: the
    whole panel, or its figures and the changed turns' Table 1 rows and Table 2 blocks (the one request
    an edit is: no second request for the panel, and no event for one: HX-Trigger is not sent)."""
    html = response.content.decode()
    whole = '<section id="score-panel" class="card score-panel" aria-labelledby="score-h" hx-swap-oob="true">' in html
    parts = '<div id="score-figures" hx-swap-oob="morph">' in html
    rows = '<template><tbody id="t1-' in html or '<template><tr id="t1r-' in html
    return "HX-Trigger" not in response and (whole or (parts and rows))


HARVEST_ANSWER = (
    "Here are two films 🎬 by Pedro Almodóvar and Agnès Varda:\n"
    "1. **Volver** (2006) is a comedy-drama. [imdb.com](https://www.imdb.com/title/tt0441909/?utm_source=openai)\n"
    "2. Cléo from 5 to 7 (1962) follows a singer through Paris."
)
GROUNDING = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQHx0"


def build_harvest(username: str = "gold", *, campaign=None):
    """A harvested conversation (imported as a reader hands it over), its citations proposed by
    the judge `citations`: S2 cites Volver on words 12-17 (IMDb, with ?utm_source=openai) and
    Cléo on words 19-29 (a Google grounding link). Assigned to a new annotator."""
    annotator = make_user(username)
    campaign = campaign or make_campaign()
    turns = [ParsedTurn("U", 1, None, "films by Spanish or French directors"), ParsedTurn("S", 1, None, "Which decade? 😀"),
             ParsedTurn("U", 2, None, "Any, with sources."), ParsedTurn("S", 2, None, HARVEST_ANSWER)]
    citations = [ParsedCitation(3, 12, 17, "https://www.imdb.com/title/tt0441909/?utm_source=openai", "Volver (2006) - IMDb"),
                 ParsedCitation(3, 19, 29, GROUNDING, "wikipedia.org")]
    parsed = ParseResult([ParsedConversation("", None, turns, citations=citations, source="chat.json")], format_name="Gemini")
    result = import_parsed(Campaign.objects.get(pk=campaign.pk), [("chat.json", parsed)], run="gemini", topic="M002",
                           annotator=annotator)
    assert result.ok, result.errors
    return Conversation.objects.get(topic__campaign=campaign, run__name="gemini"), annotator
