"""What each change to a campaign invalidates in its stored figures: decided here, and only here.

Callers say what changed; this module says what is stored again, and how:

| what changed | who says so | what is stored again |
|---|---|---|
| a save's judgments (nuggets; an entity's grade or memberships) | annotator.judgments.edits, in the save's transaction | `conversations_touched`: the nugget's conversation; every conversation naming the entity; turn labels nothing. `judgments_saved`: one conversation of one annotator scored as the panel scores it (its score returned), else those annotators' rows |
| an import's conversations published | imports.conversation_writing, in the publishing transaction | `conversations_published`: the rows of the conversations it retired, added judgments to, or that name an entity whose grade or memberships it changed, forgotten (a reader stores a missing row) |
| ... and once published | imports.conversation_writing, in short transactions | `conversations_written`: those rows stored |
| NTCIREVAL judgments | imports.ntcireval | `topics_judged`: every conversation of the topics |
| a campaign file loaded over a campaign (grades, attribute sets, settings) | imports.campaign_file | `campaign_judged_anew`: every row from the judgments |
| settings, gains, attribute sets | the console's forms | `settings_changed`: alpha alone recombines R and GF; L, method, empty turns, turn weight, duplicates, targets, divergences, weights re-score the stored inputs; gains and attribute sets' names, groups or number read the judgments again |
| a row that no longer holds its judge's nuggets (a path that bypassed the edit service) | the Table 1 export | `conversations_written` |
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from annotator.models import AnnotationEvent, Campaign, Nugget
from annotator.scores.stored.figures import StoredScore
from annotator.scores.stored.sql import chunks
from annotator.scores.stored import writes

__all__ = ["RECOMBINE", "RESCORE", "conversations_touched", "judgments_saved", "conversations_published",
           "conversations_written", "topics_judged", "campaign_judged_anew", "settings_changed"]

# The campaign fields each kind of change touches (console forms and the campaign file call
# settings_changed with the names of the fields that changed).
RECOMBINE = {"alpha"}
RESCORE = {"patience", "method", "empty_turns", "turn_weight", "duplicates_count_once"}


def conversations_touched(touched: Iterable[tuple]) -> tuple[dict[int, set[int]], int | None]:
    """annotator id -> the conversations whose figures the recorded changes (kind, topic,
    conversation, annotator, entity) touched: a nugget's conversation; every conversation where
    an entity (its grade, its memberships) is named. Turn labels change no figure. And the
    topic they were recorded in."""
    by_annotator: dict[int, set[int]] = defaultdict(set)
    entities: set[int] = set()
    topic_id = None
    for kind, topic, conversation_id, annotator_id, entity_id in touched:
        topic_id = topic
        if kind == AnnotationEvent.Kind.NUGGET and conversation_id is not None:
            by_annotator[annotator_id].add(conversation_id)
        elif kind in (AnnotationEvent.Kind.ENTITY, AnnotationEvent.Kind.MEMBERSHIP) and entity_id is not None:
            entities.add(entity_id)
    if entities:
        # .order_by(): without it the model's ordering (topic, run, turn, start) joins four tables
        # into the DISTINCT, seconds on PostgreSQL for an entity named 50,000 times
        for conversation_id, annotator_id in Nugget.objects.filter(entity_id__in=sorted(entities)).order_by().values_list(
            "turn__conversation_id", "annotator_id"
        ).distinct():
            by_annotator[annotator_id].add(conversation_id)
    return by_annotator, topic_id


def judgments_saved(by_annotator: dict[int, set[int]], topic_id: int | None) -> StoredScore | None:
    """Store what a save touched (`conversations_touched`), in its transaction; the score stored
    when that is one conversation of one annotator (a save: the answer shows it), else None."""
    if not by_annotator:
        return None
    if len(by_annotator) == 1 and len(conversations := next(iter(by_annotator.values()))) == 1:
        return writes.store_saved(next(iter(conversations)), next(iter(by_annotator)))  # its campaign comes with it
    campaign = Campaign.objects.get(topics__pk=topic_id)
    for annotator_id, conversation_ids in by_annotator.items():
        writes.refresh_conversations(campaign, conversation_ids, [annotator_id])
    return None


def conversations_published(written: set[int], *, added_to: Iterable[int] = (), entities_changed: Iterable[int] = (),
                            retired: Iterable[int] = ()) -> list[int]:
    """In an import's publishing transaction: the rows of the conversations already there whose
    figures it changed are forgotten, one DELETE a chunk; returns them, for
    `conversations_written` with those the import wrote (`written`). A row holds one annotator's
    judgments of one conversation (turns, nuggets, their entities' gains and memberships: no
    other conversation's), so these are the conversations it added judgments to (`added_to`),
    those where its changed entities are named (`entities_changed`, an entity's grade or
    memberships: every conversation naming it), and those it retired (`retired`: forgotten,
    not stored again). Never the rest of the topics: what an import costs follows its file,
    not the campaign. Until each is stored, a page that reads it finds no row and stores it then."""
    present = set(added_to)
    for chunk in chunks(sorted(set(entities_changed))):
        # .order_by(): the model's ordering would join topics and runs into the DISTINCT
        present.update(Nugget.objects.filter(entity_id__in=chunk).order_by().values_list(
            "turn__conversation_id", flat=True).distinct())
    present -= written
    gone = set(retired) - written
    writes.forget_conversations(present | gone)
    return sorted(present - gone)


def conversations_written(campaign: Campaign | int, conversation_ids: Iterable[int]) -> int:
    """Store these conversations' rows (every annotator's) from their judgments."""
    return writes.refresh_conversations(campaign, conversation_ids)


def topics_judged(campaign: Campaign | int, topic_ids: Iterable[int]) -> int:
    """Judgments of documents imported into these topics: every conversation of them (an entity
    a topic shares may be named in any)."""
    return writes.refresh_topics(campaign, topic_ids)


def campaign_judged_anew(campaign: Campaign | int) -> int:
    """The campaign's grades, attribute sets or settings replaced at once (a campaign file):
    every row from the judgments."""
    return writes.refresh_campaign(campaign)


def settings_changed(campaign: Campaign, fields: Iterable[str] = (), *, judgments: bool = False) -> None:
    """Recompute what a change of these campaign fields invalidates; `judgments` says the
    gains or the attribute sets changed (their names, groups or number), which the stored
    inputs carry: the judgments are read again."""
    fields = set(fields)
    if judgments:
        writes.refresh_campaign(campaign)
    elif fields & RESCORE or "attribute_sets" in fields:
        writes.rescore_campaign(campaign)
    elif fields & RECOMBINE:
        writes.recombine_alpha(campaign)
