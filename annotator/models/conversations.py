"""What is judged: a conversation is one run's dialogue on one topic, its turns in order, and
who is assigned to judge it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from annotator.models.campaigns import Run, Topic
from scoring.words import path_offsets, turn_offsets_list, word_count


class Conversation(models.Model):
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="conversations")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="conversations")
    source = models.CharField(max_length=500, blank=True, help_text="File it was imported from.")
    gold_annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="Whose judgments the scores use; empty means the only assigned annotator.",
    )
    imported_at = models.DateTimeField(auto_now_add=True)
    is_tree = models.BooleanField(
        default=False, help_text="Its turns branch (set with them): readers of a linear conversation skip the paths.")

    class Meta:
        ordering = ["topic__code", "run__name"]
        constraints = [models.UniqueConstraint(fields=["topic", "run"], name="conversation_topic_run_unique")]

    def __str__(self) -> str:
        return f"{self.topic.code} / {self.run.name}"


class Turn(models.Model):
    class Role(models.TextChoices):
        USER = "U", "User"
        SYSTEM = "S", "System"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    position = models.PositiveSmallIntegerField(help_text="1-based order in the conversation")
    role = models.CharField(max_length=1, choices=Role)
    number = models.PositiveSmallIntegerField(help_text="U1, S1, U2, ...: the 1 or 2, counted along the turn's path")
    text = models.TextField(help_text="Untrusted LLM or user text; rendered inert.")
    # A conversation that branches (regenerated answers, edited questions) is a tree of turns
    # listed parents first. A linear conversation stores none of these: each turn follows the
    # one before it, with probability 1, and was shown.
    follows = models.PositiveSmallIntegerField(
        null=True, blank=True,
        help_text="The position of the turn this one follows (0: a root beside the first turn); empty: the turn before it.")
    p = models.FloatField(
        null=True, blank=True,
        help_text="The probability of going from the turn it follows to this one; empty: shared equally among its siblings.")
    shown = models.BooleanField(default=True, help_text="On the branch the chat showed when it was harvested.")
    key = models.CharField(max_length=200, blank=True, help_text="The turn's id in its file (a tree's turns have one).")

    class Meta:
        ordering = ["conversation", "position"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "position"], name="turn_position_unique"),
            models.CheckConstraint(condition=Q(position__gte=1) & Q(number__gte=1), name="turn_numbers_positive"),
            models.CheckConstraint(condition=Q(role__in=["U", "S"]), name="turn_role_valid"),
            # a turn follows one listed before it: a tree has no loop, whatever wrote it
            models.CheckConstraint(condition=Q(follows__isnull=True) | Q(follows__lt=F("position")), name="turn_follows_earlier"),
            models.CheckConstraint(condition=Q(p__isnull=True) | (Q(p__gte=0) & Q(p__lte=1)), name="turn_p_probability"),
        ]

    def __str__(self) -> str:
        return f"{self.role}{self.number}"

    @property
    def is_system(self) -> bool:
        return self.role == self.Role.SYSTEM

    @property
    def parent_position(self) -> int | None:
        """The position of the turn this one follows, None for a root."""
        return parent_position(self.position, self.follows)


def parent_position(position: int, follows: int | None) -> int | None:
    """The one reading of `Turn.follows`: empty is the turn before (none for the first), 0 a root."""
    if follows is None:
        return position - 1 if position > 1 else None
    return follows or None


class Assignment(models.Model):
    """An annotator's duty to judge a conversation; two may share one and judge independently.

    `done_at` is "done", the one definition every page, export and the API read: the annotator
    said so (or an import of finished judgments did), under the rule of
    annotator.judgments.completion, which alone writes it. `active_seconds` is the time on task
    (annotator.judgments.activity): the gaps between the annotator's signs of work (saves, and a
    heartbeat while the page is visible and used), each gap longer than the idle limit left out."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    assigned_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True, help_text="When the annotator said it is done")
    guidelines_version = models.PositiveIntegerField(
        null=True, blank=True, help_text="The campaign's guidelines version in force when it was done")
    active_seconds = models.FloatField(default=0.0, help_text="Time on task, idle gaps left out")
    last_active = models.FloatField(null=True, blank=True, help_text="The last sign of work (seconds since the epoch)")

    class Meta:
        ordering = ["conversation", "annotator"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "annotator"], name="assignment_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} -> {self.conversation}"


def word_offsets(turns) -> list[int]:
    """Words before each of a conversation's turns (in position order), counted along the turn's
    path from the root (scoring.words.path_offsets): the one reading of positions for turns as
    stored. A linear conversation's are its running sums."""
    if all(turn.follows is None for turn in turns):
        return turn_offsets_list([turn.text for turn in turns])
    index = {turn.position: i for i, turn in enumerate(turns)}
    parents = [None if (up := parent_position(turn.position, turn.follows)) is None else index[up] for turn in turns]
    return path_offsets([word_count(turn.text) for turn in turns], parents)


def path_names(turns: list[tuple]) -> Callable[[int], str]:
    """A conversation's turns as (position, role, follows, key), in position order -> (the index
    of a path's leaf among its system turns, -1 for none -> the path's turn ids from the first
    turn, through the leaf, on along the single line that follows it, joined by ">"). A turn's
    id is its key, else its position: the ids the JSONL export writes."""
    index = {position: i for i, (position, *_rest) in enumerate(turns)}
    parents = [None if (up := parent_position(position, follows)) is None else index[up]
               for position, _role, follows, _key in turns]
    children: dict[int | None, list[int]] = defaultdict(list)
    for i, parent in enumerate(parents):
        children[parent].append(i)
    ids = [key or str(position) for position, _role, _follows, key in turns]
    system = [i for i, (_position, role, *_rest) in enumerate(turns) if role == Turn.Role.SYSTEM]

    def path(leaf: int) -> str:
        if leaf < 0:  # no system turn: the turns of the line from the first
            at, rows = (children[None][0] if children[None] else None), []
        else:
            at, rows = system[leaf], []
            up = parents[at]
            while up is not None:
                rows.append(up)
                up = parents[up]
            rows.reverse()
        while at is not None:
            rows.append(at)
            at = children[at][0] if len(children[at]) == 1 else None
        return ">".join(ids[i] for i in rows)

    return path


def path_through(turns, through: int | None = None) -> list[int]:
    """The indices of the turns of one root-to-leaf path of a conversation (turns with `pk`,
    `position`, `follows` and `shown`, in position order): the one through the turn whose pk is
    `through`, else the shown one; below that turn, the shown follower first, else the first."""
    index = {turn.position: i for i, turn in enumerate(turns)}
    parents = [None if (up := parent_position(turn.position, turn.follows)) is None else index[up] for turn in turns]
    children: dict[int | None, list[int]] = defaultdict(list)
    for i, parent in enumerate(parents):
        children[parent].append(i)

    def below(at: int | None) -> int | None:
        options = children.get(at, [])
        return next((i for i in options if turns[i].shown), options[0] if options else None)

    start = next((i for i, turn in enumerate(turns) if turn.pk == through), None)
    path: list[int] = []
    at = start
    while at is not None:  # up from the chosen turn
        path.append(at)
        at = parents[at]
    path.reverse()
    at = below(path[-1] if path else None)
    while at is not None:
        path.append(at)
        at = below(at)
    return path
