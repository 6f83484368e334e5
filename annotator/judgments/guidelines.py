"""A campaign's annotation guidelines: written in Markdown in the console, kept version by
version, shown to annotators beside the conversation and on their queue.

    version = write(campaign, text="...", notes={"M": "..."}, author=user)  # None: nothing changed
    shown = for_topic_type(campaign.pk, "M")  # the campaign's text and the type's note

Every change is a new `Guidelines` row (who, when, the whole text): the highest version is in
force, and `Assignment.guidelines_version` records the one in force when an annotator finished
a conversation (annotator.judgments.completion). Pages show the Markdown through one rule,
annotator.rules.markdown (markdown-it-py, cleaned by nh3: untrusted-text rules).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Max

from annotator.models import Campaign, Guidelines

__all__ = ["write", "in_force", "for_topic_type", "Shown", "MAX_CHARACTERS"]

MAX_CHARACTERS = 100_000  # of the text, and of each note


@dataclass(frozen=True)
class Shown:
    """The guidelines an annotator of one topic type reads (Markdown: pages show it through the
    `markdown` filter, annotator.templatetags.markdown)."""

    version: int
    text: str
    note: str
    created_at: object

    @property
    def empty(self) -> bool:
        return not (self.text or self.note)


def in_force(campaign_id: int) -> Guidelines | None:
    return Guidelines.in_force(campaign_id)


def write(campaign: Campaign, *, text: str, notes: dict[str, str], author) -> Guidelines | None:
    """A new version when the text or a note differs from the one in force (notes left empty
    are dropped); None when nothing changed. Two organisers saving at once get two versions,
    never one number twice."""
    text = text.strip()
    notes = {code: note.strip() for code, note in notes.items() if note and note.strip()}
    current = in_force(campaign.pk)
    if current is not None and current.text == text and current.notes == notes:
        return None
    if current is None and not text and not notes:
        return None
    for _attempt in range(3):
        try:
            with transaction.atomic():
                latest = Guidelines.objects.filter(campaign=campaign).aggregate(v=Max("version"))["v"] or 0
                return Guidelines.objects.create(campaign=campaign, version=latest + 1, text=text, notes=notes, author=author)
        except IntegrityError:  # someone took that number meanwhile: the next one
            continue
    raise RuntimeError("could not number the guidelines' new version")


def for_topic_type(campaign_id: int, topic_type_code: str) -> Shown | None:
    """The guidelines in force for an annotator of that topic type (None: none yet)."""
    current = in_force(campaign_id)
    if current is None:
        return None
    return Shown(current.version, current.text, current.notes.get(topic_type_code, ""), current.created_at)
