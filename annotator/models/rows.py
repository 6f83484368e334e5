"""One plain row shape per model, for code that reads many rows at a time without building model
instances (a save's score, the exports, the imports, the adjudication effect).

Each row's attributes carry the model's field names (`pk`, `grade_id`, `topic_id`, ...) and its
related rows the relation's name (`entity.grade`, `conversation.topic`), so code written against
the model reads a row the same way. What a reader does not select stays at its default: a field
added to a model is added here once, and every reader that wants it selects it.

Rows are read-only views of what was read: to change a judgment, fetch the model (annotator.access).
They compare by identity, as model instances of unsaved rows do, and keep `__slots__` (a campaign's
export holds a row per conversation).
"""

from __future__ import annotations

from dataclasses import dataclass

from annotator.models.conversations import Turn

__all__ = ["Named", "GradeRow", "EntityRow", "MembershipRow", "NuggetRow", "TurnRow", "ConversationRow"]


@dataclass(slots=True, eq=False)
class Named:
    """A related row of which a reader needs a name or two (a topic's code, a run's name)."""

    code: str = ""
    name: str = ""
    topic_type_id: int | None = None


@dataclass(slots=True, eq=False)
class GradeRow:
    """A `Grade` as read with its entity."""

    pk: int
    label: str
    level: int | None = None
    gain: float = 0.0

    @property
    def id(self) -> int:
        return self.pk

    def __str__(self) -> str:
        return f"{self.label} ({self.gain:g})"


@dataclass(slots=True, eq=False)
class EntityRow:
    """An `Entity`: with its grade and topic when the reader needs them (`grade.label`, `topic.code`)."""

    pk: int | None
    key: str = ""
    name: str = ""
    comment: str = ""
    version: int | None = None
    grade_id: int | None = None
    topic_id: int | None = None
    annotator_id: int | None = None
    grade: GradeRow | Named | None = None
    topic: Named | None = None

    @property
    def id(self) -> int | None:
        return self.pk

    def __str__(self) -> str:
        return self.name or self.key


@dataclass(slots=True, eq=False)
class MembershipRow:
    """A `Membership`: an entity's vector over one attribute set's groups."""

    pk: int | None
    entity_id: int
    attribute_set_id: int
    vector: list[float]
    evidence: str = ""


@dataclass(slots=True, eq=False)
class NuggetRow:
    """A `Nugget` as the score needs it, with its entity (and the entity's grade)."""

    pk: int
    turn_id: int
    start_word: int
    end_word: int
    entity_id: int
    version: int | None = None
    annotator_id: int | None = None
    entity: EntityRow | None = None

    @property
    def id(self) -> int:
        return self.pk


@dataclass(slots=True, eq=False)
class TurnRow:
    """A `Turn` (str() is "S1", as the model's)."""

    pk: int
    conversation_id: int
    position: int
    role: str
    number: int
    text: str
    follows: int | None = None  # Turn.follows: empty for the turn before it
    p: float | None = None
    shown: bool = True

    @property
    def id(self) -> int:
        return self.pk

    @property
    def is_system(self) -> bool:
        return self.role == Turn.Role.SYSTEM

    def __str__(self) -> str:
        return f"{self.role}{self.number}"


@dataclass(slots=True, eq=False)
class ConversationRow:
    """A `Conversation` with its topic's code and type and its run's name."""

    pk: int
    topic: Named
    run: Named
    source: str = ""
    gold_annotator_id: int | None = None
    is_tree: bool = False

    def __str__(self) -> str:
        return f"{self.topic.code} / {self.run.name}"
