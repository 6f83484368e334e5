"""What the workspace reads from the database, as plain data (score rows, model rows, the
types of annotator.workspace.workbench): no forms, no URLs, no HTML. The presenters
(annotator.workspace.page_context, .editor) call it; the page and every edit's answer read a
fixed number of queries, whatever the number of nuggets (`read_workbench`).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from annotator.judgments.guidelines import Shown as ShownGuidelines, for_topic_type as guidelines_for
from annotator.models import AttributeSet, Conversation, Entity, Grade, Membership, Nugget, TurnLabel
from annotator.rules.citations import CITATIONS_JUDGE
from annotator.scores.per_conversation import ConversationScore, attribute_sets_of, score_conversation
from annotator.scores.stored.figures import StoredScore
from annotator.workspace.suggestions import CitedSpan, find_candidates
from annotator.workspace.workbench import Candidate, EntityOption


@dataclass(frozen=True)
class WorkbenchRead:
    """What the page (or an edit's answer) reads before it is laid out."""

    attribute_sets: list[AttributeSet]
    score: ConversationScore
    labels: dict[int, TurnLabel]
    grades: list[Grade]
    candidates: list[Candidate]
    guidelines: ShownGuidelines | None
    expected: ConversationScore | None = None  # a path of a tree is shown: the expectation over every path


def read_workbench(conversation: Conversation, user, *, dismissed: set[str], with_guidelines: bool,
                   stored: StoredScore | None = None, path: frozenset[int] | None = None) -> WorkbenchRead:
    """Everything the workspace shows but the editor, in a fixed number of queries:
    1 attribute sets of the topic type, 2-4 score_conversation (turns; nuggets with entity and
    grade; memberships), 5 turn labels, 6 the campaign's grades, 7 the spans the systems cited
    and the proposals of the judge the campaign shows (cited_spans), 8 the annotator's
    entities that the suggestions name (when there are suggestions), 9 the guidelines (with
    `with_guidelines`). `stored`: the score a save of this conversation's judgments has just
    stored (annotator.scores.stored.writes.store_saved), shown as it is: 1-4 are not read again.
    """
    topic = conversation.topic
    if stored is not None and stored.score.conversation.pk == conversation.pk and stored.annotator_id == user.pk:
        attribute_sets, whole = stored.attribute_sets, stored.score
    else:
        attribute_sets, whole = attribute_sets_of(topic.topic_type_id), None
    if path is not None:  # a path of a tree: its own score, the expectation beside it
        score = score_conversation(conversation, user, attribute_sets, path=path)
        expected = whole or score_conversation(conversation, user, attribute_sets)
    else:
        score, expected = whole or score_conversation(conversation, user, attribute_sets), None
    labels = {label.turn_id: label for label in TurnLabel.objects.filter(turn__conversation=conversation, annotator=user)}
    grades = list(Grade.objects.filter(campaign_id=topic.campaign_id).order_by("level"))
    candidates = suggestions_for(conversation, user, score, dismissed)
    return WorkbenchRead(
        attribute_sets=attribute_sets,
        score=score,
        labels=labels,
        grades=grades,
        candidates=candidates,
        # the whole page only: the guidelines beside the text (an edit's answer leaves them be)
        guidelines=guidelines_for(topic.campaign_id, topic.topic_type.code) if with_guidelines else None,
        expected=expected,
    )


def suggestions_for(conversation: Conversation, user, score: ConversationScore, dismissed: set[str]) -> list[Candidate]:
    """The suggested nuggets (annotator.workspace.suggestions), each with the annotator's entity
    of the topic it names, if any. The judge `citations` itself sees no suggestions; the judge
    whose proposals the campaign shows does not see its own."""
    cited: list[CitedSpan] = []
    if user.get_username() != CITATIONS_JUDGE:
        proposer = conversation.topic.campaign.proposals_from_id
        cited = cited_spans(conversation.pk, proposer if proposer != user.pk else None)
    candidates = find_candidates(score, dismissed, cited)
    keys = {c.key for c in candidates if c.key}
    if keys:
        known = {e.key: e for e in entity_options_of(conversation.topic_id, user.pk, keys)}
        for candidate in candidates:
            candidate.known = known.get(candidate.key)
    return candidates


def cited_spans(conversation_id: int, proposer_id: int | None = None) -> list[CitedSpan]:
    """The spans the systems cited in the conversation, then the nuggets of the judge whose
    proposals the campaign shows (`proposer_id`), in turn and word order (one query)."""
    whose = Q(annotator__username=CITATIONS_JUDGE)
    if proposer_id is not None:
        whose |= Q(annotator_id=proposer_id)
    rows = (
        Nugget.objects.filter(whose, turn__conversation_id=conversation_id)
        .order_by("turn__position", "start_word")
        .values_list("pk", "turn_id", "start_word", "end_word", "entity__key", "entity__name", "annotator__username",
                     "entity__grade__label")
    )
    spans = [CitedSpan(*row[:6], proposed_by="" if row[6] == CITATIONS_JUDGE else row[6], grade=row[7]) for row in rows]
    return sorted(spans, key=lambda span: span.proposed_by != "")  # the systems' citations first (a stable sort)


def entity_options_of(topic_id: int, annotator_id: int, keys: set[str] | None = None) -> list[EntityOption]:
    """The annotator's entities of the topic (or those with these keys), by name (one query)."""
    entities = Entity.objects.filter(topic_id=topic_id, annotator_id=annotator_id)
    if keys is not None:
        entities = entities.filter(key__in=sorted(keys))
    rows = (
        entities
        .order_by("name", "key")
        .values_list("pk", "key", "name", "grade__label")
    )
    return [EntityOption(*row) for row in rows]


def memberships_of(entity_id: int) -> dict[int, Membership]:
    """The entity's memberships, by attribute set id (one query)."""
    return {m.attribute_set_id: m for m in Membership.objects.filter(entity_id=entity_id)}
