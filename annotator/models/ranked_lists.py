"""Web runs scored with GFR: a topic's judged documents, a run's ranked list of them and the
figures stored for it."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from annotator.models.campaigns import Run, Topic


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
