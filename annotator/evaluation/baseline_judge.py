"""A baseline automatic judge, honestly labelled: no model, just the project's own suggestions.

Every URL line of a system turn that the workspace proposes as a candidate nugget becomes a
nugget; an entity people already judged in the topic (same identity key) keeps their grade and
memberships; any other is taken as fully relevant (the campaign's top grade) with no memberships
(uniform in GF, FairWeb's convention for an entity of unknown group); a system turn is labelled o
when it holds a candidate, else x. "Already judged" means in the topic's *other* conversations: the baseline
never reads the judgments of the conversation it is compared on (that would copy the gold). It is what an annotator who accepted every suggestion and nothing else
would produce: the floor a real automatic judge should beat on the judges page.
"""

from __future__ import annotations

from annotator.judgments.edits import JudgedNugget, JudgmentsSet, judgments_version, set_conversation_judgments
from annotator.models import AnnotatorProfile, Assignment, Conversation, Entity, Nugget
from annotator.scores.per_conversation import score_conversation
from annotator.rules.candidates import candidate_lines

DESCRIPTION = (
    "Baseline, not a model: every URL line the workspace suggests is a nugget; entities people judged in the "
    "topic's other conversations keep their grades and memberships, others get the top grade and no memberships; "
    "turns with a URL line are labelled o."
)


def suggested_nuggets(conversation: Conversation, judge) -> tuple[list[JudgedNugget], dict[str, str]]:
    """The suggestions for `judge` (who has no nuggets there yet), as a whole-conversation submission."""
    score = score_conversation(conversation, judge)
    candidates = [(view.turn.pk, line) for view in score.turns if view.turn.is_system for line in candidate_lines(view.turn.text)]
    known: dict[str, Entity] = {}
    # The entities named in the topic's other conversations, by id first, then read by id: one
    # DISTINCT over six joins had PostgreSQL pick nested loops on a test database's statistics
    # and take over 10 s a conversation (a stalled `load_demo`).
    named_elsewhere = set(Nugget.objects.filter(turn__conversation__topic_id=conversation.topic_id)
                          .exclude(turn__conversation_id=conversation.pk).values_list("entity_id", flat=True))
    for entity in (
        Entity.objects.filter(pk__in=sorted(named_elsewhere), topic_id=conversation.topic_id, grade__isnull=False)
        .exclude(AnnotatorProfile.automatic("annotator__"))
        .select_related("grade").prefetch_related("memberships__attribute_set").order_by("annotator_id", "pk")
    ):
        known.setdefault(entity.key, entity)
    top_grade = conversation.topic.campaign.grades.order_by("-level").values_list("label", flat=True).first()
    turn_names = {view.turn.pk: str(view.turn) for view in score.turns}
    nuggets = []
    for turn_id, candidate in candidates:
        entity = known.get(candidate.key)
        nuggets.append(JudgedNugget(
            turn=turn_names[turn_id], start_word=candidate.start, end_word=candidate.end, entity=candidate.text,
            grade=entity.grade.label if entity else top_grade,
            memberships={m.attribute_set.name: m.vector for m in entity.memberships.all()} if entity else None,
        ))
    useful = {turn_names[turn_id] for turn_id, _line in candidates}
    labels = {str(view.turn): "o" if str(view.turn) in useful else "x" for view in score.turns if view.turn.is_system}
    return nuggets, labels


def judge_conversation(conversation: Conversation, judge) -> JudgmentsSet:
    """Assign the conversation to the baseline judge and set its judgments (replacing earlier ones)."""
    Assignment.objects.get_or_create(conversation=conversation, annotator=judge)
    nuggets, labels = suggested_nuggets(conversation, judge)
    # the baseline judges afresh whatever it had: it replaces its own judgments knowingly
    return set_conversation_judgments(conversation, annotator=judge, actor=judge, nuggets=nuggets, labels=labels,
                                      expected_version=judgments_version(conversation, judge))
