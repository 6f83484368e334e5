"""The campaign data model: what organisers set up and what gold annotators judge.

A campaign has settings (the GFRC knobs), grades (label -> gain), topic types with their
attribute sets, topics and runs. A conversation is one run's dialogue on one topic: turns in
order. Judgments belong to an annotator: their entities (per topic), the nuggets that point
at those entities (word ranges of system turns) and their turn usefulness labels. A nugget's
WC is derived from the turn texts, never stored.

Rows that annotators edit carry a `version`: a save names the version it was based on and is
refused when someone saved in between (optimistic concurrency, see annotator/judgments/edits.py).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from annotator.rule_checks import clean_fields_by_rule
from annotator.rules.attribute_sets import read_attribute_set
from annotator.rules.campaign_settings import SETTINGS, grade_problems, read_settings
from annotator.rules.identity import entity_key_and_name
from annotator.rules.ids import run_system_and_trial
from annotator.rules.vectors import VectorError, check_distribution
from scoring.words import span_text


class Campaign(models.Model):
    class Method(models.TextChoices):
        INDEPENDENT = "independent", "Independent (each turn on its own; the paper)"
        CUMULATIVE = "cumulative", "Cumulative (the turn and all earlier turns)"

    class EmptyTurns(models.TextChoices):
        IGNORE = "ignore", "Ignore turns without relevant nuggets (the paper)"
        UNIFORM = "uniform", "Score them with the uniform distribution"

    class TurnWeight(models.TextChoices):
        ONE = "one", "PW(S) = 1 (the paper)"
        MAX_PW = "max_pw", "PW(S) = largest pw(n) in the turn"

    class MissingMembership(models.TextChoices):
        UNIFORM = "uniform", "Count it as uniform (FairWeb's convention), with a warning"
        REFUSE = "refuse", "Refuse the import"

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    patience = models.PositiveIntegerField(
        "patience L (words)", default=1250, help_text="5 minutes at 250 words a minute: 1250."
    )
    alpha = models.FloatField("alpha", default=0.5, help_text="GFRC = alpha R + (1 - alpha) GF")
    method = models.CharField(max_length=16, choices=Method, default=Method.INDEPENDENT)
    empty_turns = models.CharField(max_length=16, choices=EmptyTurns, default=EmptyTurns.IGNORE)
    turn_weight = models.CharField(max_length=16, choices=TurnWeight, default=TurnWeight.ONE)
    duplicates_count_once = models.BooleanField(
        default=True, help_text="Later mentions of an entity in a conversation gain nothing."
    )
    missing_membership = models.CharField(
        "a relevant nugget without a membership",
        max_length=16,
        choices=MissingMembership,
        default=MissingMembership.UNIFORM,
        help_text="What an import does with a graded nugget that has no membership vector for an attribute set.",
    )
    ranked_list_cutoff = models.PositiveIntegerField(
        "ranked-list cutoff l (ranks)", default=20,
        help_text="GFR of ranked-list runs reads each list down to this rank (FairWeb-1: 20).",
    )
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="organised_campaigns", blank=True
    )
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="CampaignMember", through_fields=("campaign", "user"),
        related_name="annotated_campaigns", blank=True,
        help_text="The people who annotate in it: added on its accounts page (by name, or made there); its "
                  "conversations are assigned among them",
    )
    proposals_from = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name="show the proposals of",
        help_text="An automatic judge (e.g. an LLM) whose nuggets gold annotators see as suggestions, "
        "\"proposed by\" it, to accept or dismiss like the systems' citations.",
    )
    version = models.PositiveIntegerField(default=1, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # A staging area (annotator.interchange.imports.staging): a hidden campaign where an import writes its
    # rows before they are visible, in short transactions; nobody organises or is assigned in it.
    staging_for = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, editable=False, related_name="+",
        help_text="The campaign an import's staged rows are for; empty for every real campaign",
    )
    staged_by = models.CharField(
        max_length=300, blank=True, editable=False, help_text="The process staging: host, pid and start time",
    )

    class Meta:
        ordering = ["slug"]
        constraints = [
            models.CheckConstraint(condition=Q(patience__gte=1), name="campaign_patience_positive"),
            models.CheckConstraint(
                condition=Q(alpha__gte=0) & Q(alpha__lte=1), name="campaign_alpha_in_unit_interval"
            ),
            models.CheckConstraint(condition=Q(ranked_list_cutoff__gte=1), name="campaign_ranked_list_cutoff_positive"),
        ]

    def __str__(self) -> str:
        return self.name or self.slug

    def clean_fields(self, exclude=None) -> None:
        """The settings' rules (annotator.rules.campaign_settings), in their words."""
        _read, problems = read_settings({field: getattr(self, field) for field in SETTINGS})
        clean_fields_by_rule(self, exclude, problems, {field: field for field in SETTINGS})

    def is_organiser(self, user) -> bool:
        return user.is_superuser or self.organisers.filter(pk=user.pk).exists()


class CampaignMember(models.Model):
    """An annotator of a campaign: someone an organiser added (by name, or a new account made for
    it). Their assignments are dealt out among the campaign's members; an account belongs to the
    campaigns it is a member, an assignee or an organiser of (annotator.access)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="+")
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="campaign_member_unique")]

    def __str__(self) -> str:
        return f"{self.user} in {self.campaign}"


class Guidelines(models.Model):
    """One version of a campaign's annotation guidelines, in Markdown: the campaign's text and a
    note per topic type (by its code). Every change is a new version (who, when, the text); the
    highest is in force, and the version in force when an annotator finishes a conversation is
    kept with it (`Assignment.guidelines_version`)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="guidelines")
    version = models.PositiveIntegerField()
    text = models.TextField(blank=True)
    notes = models.JSONField(default=dict, blank=True, help_text="Topic type code -> its note (Markdown)")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "-version"]
        constraints = [models.UniqueConstraint(fields=["campaign", "version"], name="guidelines_version_unique")]

    def __str__(self) -> str:
        return f"{self.campaign} guidelines v{self.version}"

    @classmethod
    def in_force(cls, campaign_id: int) -> Guidelines | None:
        return cls.objects.filter(campaign_id=campaign_id).order_by("-version").first()


class Grade(models.Model):
    """A relevance level and its gains: the paper maps L0/L1/L2 to 0/0.5/1 in conversations;
    FairWeb-1 scores ranked lists with L1 -> 1, L2 -> 3 (NTCIREVAL's `-g 1:3`)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="grades")
    label = models.CharField(max_length=16)
    level = models.PositiveSmallIntegerField(help_text="0 for L0, 1 for L1, ...: the key an annotator presses")
    gain = models.FloatField()
    ranked_list_gain = models.FloatField(
        "ranked-list gain", default=0.0, help_text="The gain of a ranked list's document of this grade (GFR)."
    )

    class Meta:
        ordering = ["campaign", "level"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "label"], name="grade_label_unique"),
            models.UniqueConstraint(fields=["campaign", "level"], name="grade_level_unique"),
            models.CheckConstraint(condition=Q(gain__gte=0) & Q(gain__lte=1), name="grade_gain_in_unit_interval"),
            models.CheckConstraint(condition=Q(ranked_list_gain__gte=0), name="grade_ranked_list_gain_non_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.label} ({self.gain:g})"

    def clean_fields(self, exclude=None) -> None:
        """A grade's rules (annotator.rules.campaign_settings), in their words."""
        problems = grade_problems(self.label, self.gain, self.ranked_list_gain)
        clean_fields_by_rule(self, exclude, problems, {f: f for f in ("label", "gain", "ranked_list_gain")})


class TopicType(models.Model):
    """Topics of one type (M: movies, R: researchers, ...) share attribute sets; the id's letter picks it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="topic_types")
    code = models.CharField(max_length=8)
    name = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["campaign", "code"]
        constraints = [models.UniqueConstraint(fields=["campaign", "code"], name="topic_type_code_unique")]

    def __str__(self) -> str:
        return f"{self.code} {self.name}".strip()


class AttributeSet(models.Model):
    """A set of groups (nominal or ordinal) with the target distribution fairness is judged against."""

    class Kind(models.TextChoices):
        NOMINAL = "nominal", "Nominal"
        ORDINAL = "ordinal", "Ordinal"

    class Divergence(models.TextChoices):
        JSD = "jsd", "JSD (nominal)"
        NMD = "nmd", "NMD (ordinal)"
        RNOD = "rnod", "RNOD (ordinal)"

    topic_type = models.ForeignKey(TopicType, on_delete=models.CASCADE, related_name="attribute_sets")
    name = models.CharField(max_length=50)
    kind = models.CharField(max_length=8, choices=Kind)
    groups = models.JSONField(help_text="Group labels, in order (ordinal: low to high).")
    target = models.JSONField(help_text="Target (gold) distribution D*, one probability per group.")
    divergence = models.CharField(max_length=8, choices=Divergence)
    weight = models.FloatField(default=1.0, help_text="Relative weight in GF; normalised over the topic type.")
    helper = models.JSONField(
        default=dict, blank=True, help_text="How evidence becomes a vector: ordinal bands or a value->group mapping."
    )
    position = models.PositiveSmallIntegerField(default=0)
    version = models.PositiveIntegerField(default=1, editable=False)

    class Meta:
        ordering = ["topic_type", "position", "name"]
        constraints = [
            models.UniqueConstraint(fields=["topic_type", "name"], name="attribute_set_name_unique"),
            models.CheckConstraint(condition=Q(weight__gte=0), name="attribute_set_weight_non_negative"),
            models.CheckConstraint(
                condition=Q(kind="ordinal") | Q(divergence="jsd"), name="attribute_set_nominal_uses_jsd"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    RULED_FIELDS = ("name", "kind", "groups", "target", "divergence", "weight", "helper")

    def clean_fields(self, exclude=None) -> None:
        """An attribute set's rules (annotator.rules.attribute_sets), in their words: a problem
        of its helper is said with where in it (``bands: ...``, ``mapping.Japan: ...``)."""
        _read, problems = read_attribute_set({field: getattr(self, field) for field in self.RULED_FIELDS})
        clean_fields_by_rule(self, exclude, problems, {field: field for field in self.RULED_FIELDS})

    @property
    def size(self) -> int:
        return len(self.groups)


class Topic(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="topics")
    topic_type = models.ForeignKey(TopicType, on_delete=models.PROTECT, related_name="topics")
    code = models.CharField(max_length=32, help_text="e.g. M002; its first letter is the topic type.")
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["campaign", "code"]
        constraints = [models.UniqueConstraint(fields=["campaign", "code"], name="topic_code_unique")]

    def __str__(self) -> str:
        return self.code


class Run(models.Model):
    """One system's trial: the conversations harvested from it, one per topic, or (a ranked-list
    run, e.g. a web search engine's) its ranked documents per topic."""

    class Kind(models.TextChoices):
        CONVERSATIONS = "conversations", "conversations (GFRC)"
        RANKED_LISTS = "ranked_lists", "ranked lists (GFR)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=100, help_text="e.g. bing-trial1")
    kind = models.CharField(max_length=16, choices=Kind, default=Kind.CONVERSATIONS)
    system = models.CharField(max_length=100, blank=True)
    trial = models.PositiveSmallIntegerField(default=1)
    source = models.CharField(max_length=500, blank=True, help_text="The run file a ranked-list run was imported from.")

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="run_name_unique"),
            models.CheckConstraint(condition=Q(kind__in=["conversations", "ranked_lists"]), name="run_kind_valid"),
        ]

    def __str__(self) -> str:
        return self.name

    system_and_trial_of = staticmethod(run_system_and_trial)  # what a run name says (annotator.rules.ids)

    def system_and_trial(self) -> tuple[str, int]:
        """The stored system and trial; a run stored without a system (older imports) reads
        both from its name."""
        return (self.system, self.trial) if self.system else self.system_and_trial_of(self.name)


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

    class Meta:
        ordering = ["topic__code", "run__name"]
        constraints = [models.UniqueConstraint(fields=["topic", "run"], name="conversation_topic_run_unique")]

    def __str__(self) -> str:
        return f"{self.topic.code} / {self.run.name}"


class TopicDocument(models.Model):
    """A judged document of a topic by number: the numbers ranked lists are stored as.

    `key` is the document's entity key (the normalised URL when the id is a URL, else the id),
    so a page judged once, in a qrels file or as a conversation's nugget, counts wherever it is
    ranked. A key gets its number when a run ranking it is imported while it is judged; numbers
    never change, whatever later happens to the judgments (scoring reads them by key).
    """

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="documents")
    number = models.PositiveIntegerField()
    key = models.CharField(max_length=1000)

    class Meta:
        ordering = ["topic", "number"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "number"], name="topic_document_number_unique"),
            models.UniqueConstraint(fields=["topic", "key"], name="topic_document_key_unique"),
            models.CheckConstraint(condition=~Q(key=""), name="topic_document_key_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.topic_id} #{self.number} {self.key}"


class RankedList(models.Model):
    """A ranked-list run's documents for one topic, in the run file's order (what NTCIREVAL
    scores; it does not re-sort by score), stored as what it is: arrays, not a row a document.

    - `documents`: int32 (little-endian), one per rank: n >= 0 is the topic's judged document
      number n (TopicDocument), -(j + 1) the j-th of `unjudged`;
    - `unjudged`: the keys of the documents that were not judged when the run was imported,
      one a line (a document id has no whitespace);
    - `scores`: float64, the score column; `stated_ranks`: int64, the rank column, empty when
      it is 1, 2, 3, ... (the usual case).
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="ranked_lists")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="ranked_lists")
    length = models.PositiveIntegerField(help_text="Documents in the list")
    documents = models.BinaryField()
    unjudged = models.TextField(blank=True)
    scores = models.BinaryField()
    stated_ranks = models.BinaryField(blank=True, default=b"")

    class Meta:
        ordering = ["run", "topic"]
        constraints = [
            models.UniqueConstraint(fields=["run", "topic"], name="ranked_list_run_topic_unique"),
            models.CheckConstraint(condition=Q(length__gte=1), name="ranked_list_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.run_id} {self.topic_id} ({self.length} documents)"


class RankedListFigures(models.Model):
    """Every GFR figure of one topic's ranked lists at one cutoff, stored where they are first
    asked for and read until what they were computed from changes (`inputs`: a digest of the
    topic's judgments, lists, attribute sets and the campaign's gains, scores.ranked_lists):
    an edited judgment, a re-imported run or a changed target re-scores that topic only.

    `runs`: int64 run ids (the runs with a list for the topic); `values`: float64, one row per
    run and one column per `measures` entry ([measure, attribute set or "-"]); `evaluated`
    False for a topic without a relevant judged document (no figure, as from NTCIREVAL)."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="ranked_list_figures")
    cutoff = models.PositiveIntegerField()
    as_ntcireval = models.BooleanField(default=False, help_text="Uniform vectors written with six decimals, as NTCIREVAL")
    inputs = models.CharField(max_length=64)
    evaluated = models.BooleanField(default=True)
    runs = models.BinaryField()
    measures = models.JSONField(default=list)
    values = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["topic", "cutoff", "as_ntcireval"], name="ranked_list_figures_unique"),
        ]


class Turn(models.Model):
    class Role(models.TextChoices):
        USER = "U", "User"
        SYSTEM = "S", "System"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    position = models.PositiveSmallIntegerField(help_text="1-based order in the conversation")
    role = models.CharField(max_length=1, choices=Role)
    number = models.PositiveSmallIntegerField(help_text="U1, S1, U2, ...: the 1 or 2")
    text = models.TextField(help_text="Untrusted LLM or user text; rendered inert.")

    class Meta:
        ordering = ["conversation", "position"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "position"], name="turn_position_unique"),
            models.CheckConstraint(condition=Q(position__gte=1) & Q(number__gte=1), name="turn_numbers_positive"),
            models.CheckConstraint(condition=Q(role__in=["U", "S"]), name="turn_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.role}{self.number}"

    @property
    def is_system(self) -> bool:
        return self.role == self.Role.SYSTEM


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


class AnnotatorProfile(models.Model):
    """What the project knows about an annotator account beyond its login.

    An automatic judge (an LLM or a pipeline) annotates like anyone, through imports or the API,
    but it is nobody's colleague: it stays out of human progress figures, adjudication pairs
    and the choice of gold, and is compared with the gold on the judges page instead.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotator_profile")
    is_automatic = models.BooleanField(
        "automatic judge", default=False, help_text="An LLM or a pipeline, not a person."
    )
    description = models.TextField(blank=True, help_text="Model, version, prompt: what produced its judgments.")
    is_adjudicated_gold = models.BooleanField(
        "adjudicated gold", default=False,
        help_text="The account whose judgments are the organisers' adjudicated gold (no login).",
    )
    campaign = models.ForeignKey(
        "Campaign", on_delete=models.SET_NULL, null=True, blank=True, related_name="made_accounts",
        help_text="The campaign that made this account: an automatic judge (by an LLM judge run, an upload), or a "
                  "person invited on its accounts page. It belongs to that campaign: only its organisers use a "
                  "judge, and give a person who has not set a password yet a new link. Empty: made by an "
                  "administrator, or the judge of the systems' citations (every campaign's).",
    )

    def __str__(self) -> str:
        if self.is_adjudicated_gold:
            return f"{self.user} (adjudicated gold)"
        return f"{self.user} ({'automatic judge' if self.is_automatic else 'human'})"

    @staticmethod
    def automatic(prefix: str = "") -> Q:
        """Rows whose user (reached through `prefix`, e.g. "annotator__") is an automatic judge."""
        return Q(**{f"{prefix}annotator_profile__is_automatic": True})

    def save(self, *args, **kwargs) -> None:
        """A judge is never gold: marking an account (here, on the console or in the admin) hands
        the conversations it was the gold of back to their human annotators."""
        super().save(*args, **kwargs)
        if self.is_automatic:
            Conversation.objects.filter(gold_annotator_id=self.user_id).update(gold_annotator=None)

    @classmethod
    def mark(cls, user, *, automatic: bool = True, description: str | None = None, campaign=None) -> AnnotatorProfile:
        """Mark `user` an automatic judge (or a person again); `campaign`: the campaign it belongs
        to from now on (left as it is when None)."""
        profile, _ = cls.objects.get_or_create(user=user)
        profile.is_automatic = automatic
        if description is not None:
            profile.description = description
        if campaign is not None:
            profile.campaign = campaign
        profile.save()
        return profile


def is_automatic_judge(user) -> bool:
    profile = getattr(user, "annotator_profile", None) if getattr(user, "pk", None) else None
    return bool(profile and profile.is_automatic)


class AdjudicationDecision(models.Model):
    """An organiser settling one disagreement of a conversation: the adjudicated gold took one
    annotator's value (`taken_from`) or a value the organiser wrote (`taken_from` empty).

    The change itself is in the history as the gold account's AnnotationEvents after
    `after_event`; undoing the decision undoes those events and deletes this row."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="decisions")
    unit = models.CharField(max_length=1200, help_text="What was settled: span:S1:<entity key>:0, grade:<key>, ...")
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


class ImportJob(models.Model):
    """A conversation upload too large to import within a request: the background worker
    (`manage.py db_worker`) imports it with annotator.interchange.imports.conversations, all or nothing, and records
    its progress here for the console's job page."""

    class Status(models.TextChoices):
        QUEUED = "queued", "waiting for the worker"
        RUNNING = "running", "running"
        DONE = "done", "imported"
        FAILED = "failed", "nothing imported"
        CANCELLED = "cancelled", "cancelled: nothing imported"

    class Stage(models.TextChoices):
        WAITING = "waiting", "Waiting for the worker"
        PARSING = "parsing", "Reading the files"
        CHECKING = "checking", "Checking against the campaign"
        WRITING = "writing", "Writing"
        FINISHED = "finished", "Finished"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="import_jobs")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        help_text="Whose judgments the files hold; empty: the uploader",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=9, choices=Status, default=Status.QUEUED)
    stage = models.CharField(max_length=8, choices=Stage, default=Stage.WAITING)
    run = models.CharField(max_length=100, blank=True, help_text="The run of every conversation; empty: from the files")
    topic = models.CharField(
        max_length=32, blank=True, help_text="The topic of the harvested conversations (files with topics keep theirs)"
    )
    replace = models.BooleanField(default=False)
    file_names = models.JSONField(default=list)
    conversations = models.PositiveIntegerField(default=0, help_text="Conversations in the files (counted before parsing)")
    parsed = models.PositiveIntegerField(default=0)
    checked = models.PositiveIntegerField(default=0)
    written = models.PositiveIntegerField(default=0)
    summary = models.TextField(blank=True)
    errors = models.JSONField(default=list, blank=True, help_text="file:line: reason, when nothing was imported")
    warnings = models.JSONField(default=list, blank=True)
    task_id = models.CharField(max_length=64, blank=True, help_text="The django-tasks result running this job")
    worker = models.CharField(
        max_length=300, blank=True, help_text="The process running it: host, pid and start time (annotator.interchange.imports.jobs)"
    )
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Last sign of life of that process")
    cancel_requested_at = models.DateTimeField(
        null=True, blank=True, help_text="An organiser asked to cancel it: the worker stops before publishing anything")
    cancelled_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                     related_name="+")
    published_at = models.DateTimeField(
        null=True, blank=True, help_text="When its conversations became visible: from then on it can no longer be cancelled")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=["queued", "running", "done", "failed", "cancelled"]),
                                   name="import_job_status_valid"),
            models.CheckConstraint(
                condition=Q(parsed__lte=F("conversations")) & Q(checked__lte=F("conversations"))
                & Q(written__lte=F("conversations")),
                name="import_job_counts_within_total",
            ),
        ]

    def __str__(self) -> str:
        return f"import {self.pk} into {self.campaign_id}: {self.status}"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED, self.Status.CANCELLED)

    @property
    def cancellable(self) -> bool:
        return not self.finished and self.cancel_requested_at is None and self.published_at is None

    @property
    def percent(self) -> int:
        """Each conversation is parsed, checked and written: three steps of the bar."""
        if self.status == self.Status.DONE:
            return 100
        steps = 3 * max(self.conversations, 1)
        return min(100, round(100 * (self.parsed + self.checked + self.written) / steps))


class ImportJobFile(models.Model):
    """An uploaded file waiting for its job; deleted when the job ends."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="files")
    name = models.CharField(max_length=500)
    data = models.BinaryField()

    class Meta:
        ordering = ["pk"]


class LlmAnswer(models.Model):
    """An LLM server's answer to one request, kept so that a run asks nothing twice: an
    interrupted run resumes from here, and running again with the same prompt, model and
    parameters reads the same answers (annotator.llm_judge.client). The key is the SHA-256 of
    the request (messages, schema, model, temperature, seed, token limit) with the server (its
    name and address) and the campaign that asked: one campaign's run never reads another's
    answers, nor one server's answers for another's. No API key is in it."""

    key = models.CharField(max_length=64, unique=True)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, null=True, blank=True, related_name="+",
                                 help_text="The campaign whose run asked (part of the key: a cache never crosses campaigns)")
    server = models.CharField(max_length=64, blank=True,
                              help_text="The listed server's name (GFRC_LLM_SERVERS); empty: a command line's --base-url")
    base_url = models.CharField(max_length=500, blank=True, help_text="The address asked (part of the key too)")
    model = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=50)
    text = models.TextField(help_text="The answer's content, as the server sent it")
    finish_reason = models.CharField(max_length=20, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0.0, help_text="How long the server took")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.model} answer {self.key[:12]}"


class LlmJudgeRun(models.Model):
    """One run of an LLM judge over (part of) a campaign, from `judge_with_llm` or the console's
    background job: what produced the judge's judgments (server, model, prompt version,
    temperature, seed), its progress, time, tokens and what failed. Never the API key: only the
    name of the environment variable holding it."""

    class Status(models.TextChoices):
        QUEUED = "queued", "waiting for the worker"
        RUNNING = "running", "running"
        DONE = "done", "finished"
        FAILED = "failed", "stopped"
        CANCELLED = "cancelled", "cancelled"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="llm_runs")
    judge = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=9, choices=Status, default=Status.QUEUED)
    server = models.CharField(max_length=64, blank=True,
                              help_text="The deployment's listed server (GFRC_LLM_SERVERS) it runs on; empty: a command "
                                        "line's --base-url (never run by the worker)")
    base_url = models.CharField("server address", max_length=500,
                                help_text="For the record: the worker asks the address listed for `server` when it runs")
    model = models.CharField(max_length=200)
    key_variable = models.CharField(max_length=100, default="OPENAI_API_KEY",
                                    help_text="For the record: the environment variable holding the API key (the key "
                                              "itself is never stored; the worker reads the variable listed for `server`)")
    prompt_version = models.CharField(max_length=50)
    temperature = models.FloatField(default=0.0)
    seed = models.BigIntegerField(null=True, blank=True)
    max_tokens = models.PositiveIntegerField(default=1024)
    timeout = models.FloatField(default=120.0, help_text="Seconds per request")
    retries = models.PositiveSmallIntegerField(default=2, help_text="More attempts after a failed request (with backoff)")
    response_format = models.CharField(max_length=12, default="json_object",
                                       help_text="json_object (llama.cpp) or json_schema (vLLM, Ollama, vendors)")
    quotes = models.CharField(max_length=8, default="free",
                              help_text="free: any words of the turn; lines: one of its lines (small models)")
    concurrency = models.PositiveSmallIntegerField(default=1)
    limit = models.PositiveIntegerField(null=True, blank=True, help_text="At most this many conversations")
    topics = models.JSONField(default=list, blank=True)
    runs = models.JSONField(default=list, blank=True)
    conversations = models.PositiveIntegerField(default=0, help_text="Conversations chosen")
    judged = models.PositiveIntegerField(default=0, help_text="Conversations whose judgments were written")
    failed = models.PositiveIntegerField(default=0, help_text="Conversations skipped: nothing written")
    requests = models.PositiveIntegerField(default=0, help_text="Requests sent to the server")
    cached = models.PositiveIntegerField(default=0, help_text="Answers read from the cache instead")
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    problems = models.JSONField(default=list, blank=True, help_text="What went wrong, per conversation")
    summary = models.TextField(blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    worker = models.CharField(max_length=300, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    cancel_requested_at = models.DateTimeField(null=True, blank=True,
                                               help_text="An organiser asked to stop it: no new request is sent")
    cancelled_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                     related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=["queued", "running", "done", "failed", "cancelled"]),
                                   name="llm_judge_run_status_valid"),
        ]

    def __str__(self) -> str:
        return f"LLM run {self.pk} ({self.model}) in {self.campaign_id}: {self.status}"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED, self.Status.CANCELLED)

    @property
    def cancellable(self) -> bool:
        return not self.finished and self.cancel_requested_at is None

    @property
    def percent(self) -> int:
        if self.status == self.Status.DONE:
            return 100
        return min(100, round(100 * (self.judged + self.failed) / max(self.conversations, 1)))

    @property
    def seconds(self) -> float | None:
        if self.started_at is None:
            return None
        return ((self.finished_at or timezone.now()) - self.started_at).total_seconds()

    def describe(self) -> str:
        """What produced the judgments: the line the judge's description and reports carry."""
        seed = "none" if self.seed is None else str(self.seed)
        where = f"server {self.server} ({self.base_url})" if self.server else self.base_url
        return (f"LLM judge: model {self.model} at {where}, prompt {self.prompt_version} (quotes: {self.quotes}), "
                f"temperature {self.temperature:g}, seed {seed}, at most {self.max_tokens} tokens an answer "
                f"(run {self.pk}, {self.created_at:%Y-%m-%d %H:%M} UTC)")


class StoredFigures(models.Model):
    """One conversation's GFRC figures from one annotator's judgments, written in the same
    transaction as the judgments they come from (annotator.scores.stored is their one home).

    `annotator` null is the conversation scored with no judgments (what a judge who has not
    marked anything gets). `inputs` keeps what a re-score needs without reading the judgments
    again: each system turn's end position, each nugget's turn, word position, gain and entity,
    and its membership vectors (uniform where none was given). `lowest_distr_sim` says which
    conversations hold a campaign's worst system turns without re-scoring every one.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, related_name="+")
    r = models.FloatField()
    gf = models.FloatField()
    gfrc = models.FloatField()
    gf_sets = models.JSONField(help_text="GF per attribute set: name -> value")
    inputs = models.JSONField(help_text="The GFRC inputs of a re-score (annotator.scores.stored)")
    lowest_distr_sim = models.JSONField(
        null=True, help_text="The lowest DistrSim of a scored system turn per attribute set: name -> value "
                             "(a set with none is left out; null: stored before this was kept)")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["conversation", "annotator"], name="stored_figures_unique"),
            models.UniqueConstraint(fields=["conversation"], condition=Q(annotator__isnull=True),
                                    name="stored_figures_empty_unique"),
        ]
        indexes = [models.Index(fields=["campaign", "conversation"], name="stored_figures_campaign_idx")]
