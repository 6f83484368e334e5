"""Derived data kept where the write happens: a conversation's figures as one annotator judged
it, read as arrays by every page."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models.campaigns import Campaign
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
