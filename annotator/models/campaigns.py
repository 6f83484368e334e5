"""What an organiser sets up: the campaign and its settings (the GFRC knobs), its members
and guidelines, grades (label -> gain), topic types with their attribute sets, topics and runs."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models.rule_checks import clean_fields_by_rule
from annotator.rules.attribute_sets import read_attribute_set
from annotator.rules.campaign_settings import (
    HARVEST_SETTINGS, PAPER_FOLLOW_UPS, SIMULATED_USER_PROMPT, grade_problems, harvest_problems, read_settings, SETTINGS,
)
from annotator.rules.ids import run_system_and_trial


def paper_follow_ups() -> list[str]:
    """The paper's follow-up ("Can you name a few more?"): a campaign's default."""
    return list(PAPER_FOLLOW_UPS)


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
    # What a harvest asks the systems (annotator.harvesting; the rules: annotator.rules.campaign_settings)
    harvest_templates = models.JSONField(
        "first user turn per topic type", default=dict, blank=True,
        help_text="A topic type's code -> its first user turn, e.g. \"Please list up {description}.\\nFormat: movie "
                  "title, iMDB URL\"; a type without one: the paper's \"Please list up {description}.\"",
    )
    harvest_follow_ups = models.JSONField(
        "follow-ups", default=paper_follow_ups, blank=True,
        help_text="The user turns after the first, in order (the paper's: \"Can you name a few more?\")",
    )
    harvest_user_prompt = models.TextField(
        "simulated user's prompt", default=SIMULATED_USER_PROMPT,
        help_text="What a simulated user (a second model) is asked for each follow-up: {topic}, {description}, {type}, "
                  "{conversation}",
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
        problems += harvest_problems({field: getattr(self, field) for field in HARVEST_SETTINGS})
        clean_fields_by_rule(self, exclude, problems, {field: field for field in (*SETTINGS, *HARVEST_SETTINGS)})

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
