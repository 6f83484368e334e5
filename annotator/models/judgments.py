"""What an annotator writes: their entities (per topic), memberships, the nuggets that point at
those entities (word ranges of system turns; a nugget's WC is derived from the turn texts,
never stored), turn usefulness labels, the history of every change and adjudication.

Rows that annotators edit carry a `version`: a save names the version it was based on and is
refused when someone saved in between (optimistic concurrency, see annotator/judgments/edits/)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q

from annotator.models.campaigns import AttributeSet, Grade, Topic
from annotator.models.conversations import Conversation, Turn
from annotator.rules.identity import entity_key_and_name
from annotator.rules.vectors import check_distribution, VectorError
from scoring.words import span_text


class TurnLabel(models.Model):
    """Usefulness of a system turn: o looks useful, x not useful, - no turn (dialogue broke down)."""

    class Label(models.TextChoices):
        USEFUL = "o", "o: looks useful"
        NOT_USEFUL = "x", "x: not useful"
        NO_TURN = "-", "-: no turn"

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="labels")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    label = models.CharField(max_length=1, choices=Label)
    version = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["turn", "annotator"], name="turn_label_unique"),
            models.CheckConstraint(condition=Q(label__in=["o", "x", "-"]), name="turn_label_valid"),
        ]


class Entity(models.Model):
    """A thing a system returned (a movie, a researcher), judged once per topic by one annotator.

    Its grade and memberships apply wherever it is mentioned in the topic, across runs.
    """

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="entities")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=1000, help_text="Identity: the normalised URL, or name:<name>.")
    name = models.CharField(max_length=1000, blank=True)
    grade = models.ForeignKey(Grade, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    comment = models.TextField(blank=True)
    version = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "entities"
        ordering = ["topic", "name"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "annotator", "key"], name="entity_key_unique"),
            models.CheckConstraint(condition=~Q(key=""), name="entity_key_not_empty"),
        ]

    def __str__(self) -> str:
        return self.name or self.key


class Membership(models.Model):
    """An entity's (possibly soft) membership vector in one attribute set, with the raw evidence."""

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="memberships")
    attribute_set = models.ForeignKey(AttributeSet, on_delete=models.CASCADE, related_name="memberships")
    vector = models.JSONField()
    evidence = models.CharField(max_length=1000, blank=True, help_text='e.g. "1.3M" or "United Kingdom, United States"')

    class Meta:
        constraints = [models.UniqueConstraint(fields=["entity", "attribute_set"], name="membership_unique")]

    def clean(self) -> None:
        try:
            check_distribution(
                self.vector if isinstance(self.vector, list) else [None], length=self.attribute_set.size
            )
        except VectorError as error:
            raise ValidationError({"vector": f"The {self.attribute_set.name} vector {error}."}) from error


class Nugget(models.Model):
    """A word range of a system turn that returns an entity; WC is the position of its last word."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="nuggets")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="nuggets")
    start_word = models.PositiveIntegerField(help_text="0-based index of the first word within the turn")
    end_word = models.PositiveIntegerField(help_text="0-based index of the last word within the turn")
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The entity its words name (annotator.rules.identity.entity_key_and_name of words
    # text_start..text_end of its turn), stored when its words are written (`words_naming`).
    # The paper format names a nugget's entity (#ENTITY:) only where it differs from that: an
    # export compares these with the entity's key and name in SQL rather than derive them again
    # for every nugget (a fifth of the paper export of 10,000 conversations). It holds only while
    # text_start/text_end are the nugget's span: a path that moves the span without storing them
    # again (an undo) leaves them stale and the export derives; NULL when never stored.
    text_key = models.TextField(null=True, blank=True, editable=False)
    text_name = models.TextField(blank=True, default="", editable=False)
    text_start = models.PositiveIntegerField(null=True, blank=True, editable=False)
    text_end = models.PositiveIntegerField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["turn", "start_word"]
        constraints = [
            models.CheckConstraint(condition=Q(end_word__gte=F("start_word")), name="nugget_span_ordered"),
            models.CheckConstraint(condition=Q(start_word__gte=0), name="nugget_span_non_negative"),
            models.UniqueConstraint(fields=["turn", "annotator", "start_word"], name="nugget_start_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.turn} words {self.start_word}-{self.end_word}"

    @staticmethod
    def words_naming(words: list[str], start_word: int, end_word: int) -> dict[str, object]:
        """The text_* fields of a nugget on words start_word..end_word of a turn whose words
        (scoring.words.tokenise) are `words`: what every write of a nugget's span stores."""
        key, name = entity_key_and_name(span_text(words, start_word, end_word))
        return {"text_key": key, "text_name": name, "text_start": start_word, "text_end": end_word}


class AnnotationEvent(models.Model):
    """One change to someone's judgments: who, when, what, before and after. Undo replays it backwards."""

    class Action(models.TextChoices):
        CREATE = "create", "created"
        UPDATE = "update", "updated"
        DELETE = "delete", "deleted"
        REPLACE = "replace", "replaced"

    class Kind(models.TextChoices):
        NUGGET = "nugget", "nugget"
        ENTITY = "entity", "entity"
        MEMBERSHIP = "membership", "membership"
        LABEL = "label", "turn label"
        CONVERSATION = "conversation", "conversation"

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="events")
    # The history outlives a conversation: a replaced conversation's events move to its
    # replacement (annotator.interchange.imports.conversations), and deleting one any other way keeps them, unlinked.
    conversation = models.ForeignKey(
        Conversation, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", help_text="Whose judgments changed"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+", help_text="Who changed them"
    )
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=8, choices=Action)
    kind = models.CharField(max_length=12, choices=Kind)
    object_id = models.BigIntegerField()
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    undo_of = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="undone_by"
    )
    imported = models.BooleanField(
        default=False, help_text="Written by a file import: in the history, but not undone from the workspace"
    )

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["conversation", "annotator", "-id"], name="event_conversation_idx")]

    def __str__(self) -> str:
        return f"{self.actor} {self.get_action_display()} {self.kind} {self.object_id}"


class AdjudicationDecision(models.Model):
    """An organiser settling one disagreement of a conversation: the adjudicated gold took one
    annotator's value (`taken_from`) or a value the organiser wrote (`taken_from` empty).

    The change itself is in the history as the gold account's AnnotationEvents after
    `after_event`; undoing the decision undoes those events and deletes this row."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="decisions")
    unit = models.CharField(max_length=1200, help_text="What was settled: span:<turn position>:<entity key>:0, grade:<key>, label:<turn position>, ...")
    description = models.CharField(max_length=1200)
    taken_from = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+", help_text="Whose value the gold took; empty: written by the organiser")
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    after_event = models.BigIntegerField(help_text="The last history event before the decision")

    class Meta:
        ordering = ["conversation", "-id"]

    def __str__(self) -> str:
        return self.description
