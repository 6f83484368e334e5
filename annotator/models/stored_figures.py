"""Derived data kept where the write happens: a conversation's figures as one annotator judged
it, read as arrays by every page."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models.campaigns import Campaign, Run
from annotator.models.conversations import Conversation


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
        indexes = [
            models.Index(fields=["campaign", "conversation"], name="stored_figures_campaign_idx"),
        ]
        # Not declared here, because it is SQLite's alone (migration 0027): the index
        # stored_figures_sums_idx (conversation, annotator, r, gf, gfrc), which a campaign's runs
        # summed (scores.stored.totals) read the figures from on SQLite (the rows themselves hold
        # pages of JSON inputs). On PostgreSQL no index holds a figure, and the table's pages are
        # half empty, so that a re-score updates its rows in place.


class StoredRunTotals(models.Model):
    """What a run holds, kept: its conversations, those nobody is assigned, its people's
    assignments and those done, its people's and automatic judges' nuggets, and the sums and counts of its conversations'
    judges' stored R, GF and GFRC (the judge as `annotator.scores.stored.totals` decides it).
    What the overview and a page about one conversation need of the rest of the campaign
    (annotator.judgments.run_totals). Kept while no `StaleRunTotals` names the run; the
    database's own triggers (migration 0028) name it on every write that could change it,
    whatever the path."""

    run = models.OneToOneField(Run, on_delete=models.CASCADE, primary_key=True, related_name="+")
    conversations = models.PositiveIntegerField()
    unassigned = models.PositiveIntegerField()
    assignments = models.PositiveIntegerField()
    done = models.PositiveIntegerField()
    nuggets = models.PositiveIntegerField(help_text="people's")
    judges_nuggets = models.PositiveIntegerField(help_text="automatic judges'")
    r_sum = models.FloatField()
    r_count = models.PositiveIntegerField()
    gf_sum = models.FloatField()
    gf_count = models.PositiveIntegerField()
    gfrc_sum = models.FloatField()
    gfrc_count = models.PositiveIntegerField()


class StaleRunTotals(models.Model):
    """A run whose `StoredRunTotals` a write has made stale (`run_id`), or every run of a campaign
    (`campaign_id`, no run: what a re-score of the whole campaign writes first, so that its
    rows' triggers find it and name no run one by one). Written by the database's triggers
    (migration 0028) on the stored figures, the nuggets, the assignments, the conversations and
    the annotators' profiles, in the writer's transaction. Rows are only added by writers (no lock to
    wait on) and deleted by the reader that sums the runs again. No foreign keys: a run's
    conversations deleted with it name it after it is collected for deletion."""

    run_id = models.BigIntegerField(null=True, db_index=True)
    campaign_id = models.BigIntegerField(null=True, db_index=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(run_id__isnull=True) ^ Q(campaign_id__isnull=True),
                                   name="stale_run_totals_names_a_run_or_a_campaign"),
        ]
