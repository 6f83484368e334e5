"""What the conversation column and the score panel's tables are made of, as plain data: the
read side fills these (annotator.workspace.queries, .suggestions, .page_context,
.score_panel) and annotator.workspace.conversation_html renders them. This module is the
bottom of the workspace: it imports nothing of it, so the renderer and the read side share
these types without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotator.models import TurnLabel
from annotator.scores.per_conversation import ConversationScore


@dataclass(frozen=True)
class EntityOption:
    """An entity of the topic as the link field's options and the suggestions show it (read with values_list: no model objects)."""

    pk: int
    key: str
    name: str
    grade: str | None  # the grade's label


@dataclass
class Candidate:
    """A suggested nugget: a span the system cited, a judge's proposal, or a line
    (annotator.rules.candidates)."""

    turn_id: int
    start: int
    end: int
    text: str
    known: EntityOption | None = None
    key: str | None = None  # the entity identity its text gives (cited: the cited page's)
    cited_by: int | None = None  # a span the system cited: that nugget of the judge `citations`
    source: str = ""  # the cited page's title
    redirect: bool = False  # the cited URL is a Google grounding redirect (the page is unknown offline)
    proposed_by: str = ""  # cited_by is a nugget of this automatic judge (Campaign.proposals_from), not a citation
    proposed_grade: str | None = None  # the grade that judge gave


@dataclass(frozen=True)
class Urls:
    """Where the column's controls send their requests (annotator.workspace.control_urls)."""

    create: str
    dismiss: str
    label: str  # with {} for the turn id
    nugget: str  # with {} for the nugget id
    page: str


@dataclass
class Workbench:
    """What the conversation column is rendered from."""

    score: ConversationScore
    labels: dict[int, TurnLabel]
    selected_id: int | None
    urls: Urls
    csrf_token: str
    candidates: list[Candidate] = field(default_factory=list)
    # a conversation that branches: the turns of the path shown (None: every turn, a line), and
    # at each of its turns that has siblings, every sibling's turn id in order
    path: frozenset[int] | None = None
    siblings: dict[int, list[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class NuggetLine:
    """A row of Table 1, its figures as the paper prints them."""

    turn_id: int
    turn: str
    name: str
    wc: int
    pw: str
    gain: str | None  # None: not graded yet
    contribution: str
    duplicate: bool
    missing: str  # attribute sets without a membership, for a relevant nugget
    nugget_id: int


@dataclass(frozen=True)
class Bar:
    """A group's bar of Table 2: achieved against target."""

    group: str
    achieved: str  # percent, one decimal
    target: str
    shown: str  # percent, rounded
