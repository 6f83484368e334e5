"""Building blocks for tests: a FairWeb-like campaign and conversations built through the
same business rules the app uses (annotator.judgments.edits), never by writing rows behind them."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from annotator.judgments import edits
from annotator.models import (
    AttributeSet, Campaign, CampaignMember, Conversation, Grade, TopicType,
)
from bench.lib.seeding import new_conversation
from scoring.gfr import DEFAULT_GAINS

FAIRWEB_ORIGIN_TARGET = [
    0.244725738, 0.111814346, 0.008438819, 0.154008439,
    0.099156118, 0.200421941, 0.080168776, 0.101265823,
]
ORIGIN_REGIONS = ["Africa", "America", "Antarctica", "Asia", "Caribbean", "Europe", "Middle East", "Oceania"]


def make_user(username: str, **extra):
    return get_user_model().objects.create_user(username=username, password=username + "-pw", **extra)


def join(campaign: Campaign, *users) -> None:
    """Add the users to the campaign's people, as its organiser does on the accounts page."""
    for user in users:
        CampaignMember.objects.get_or_create(campaign=campaign, user=user)


def make_campaign(slug: str = "fw", organiser=None, **settings) -> Campaign:
    campaign = Campaign.objects.create(slug=slug, name=f"Campaign {slug}", **settings)
    for level, (label, gain) in enumerate([("L0", 0.0), ("L1", 0.5), ("L2", 1.0)]):
        Grade.objects.create(campaign=campaign, label=label, level=level, gain=gain, ranked_list_gain=DEFAULT_GAINS[label])
    movies = TopicType.objects.create(campaign=campaign, code="M", name="Movies")
    AttributeSet.objects.create(
        topic_type=movies, name="RATINGS", kind="ordinal", divergence="rnod", position=0,
        groups=["<100", "100-10K", "10K-1M", ">=1M"], target=[0.25] * 4,
    )
    AttributeSet.objects.create(
        topic_type=movies, name="ORIGIN", kind="nominal", divergence="jsd", position=1,
        groups=ORIGIN_REGIONS, target=FAIRWEB_ORIGIN_TARGET,
    )
    if organiser is not None:
        campaign.organisers.add(organiser)
    return campaign


def make_conversation(
    campaign: Campaign, turns: list[tuple[str, str]], topic: str = "M002", run: str = "bing-trial1",
    annotators=(),
) -> Conversation:
    """turns: [("U", text), ("S", text), ...] in order (bench.lib.seeding's, the one way to lay one out)."""
    return new_conversation(campaign, turns, topic=topic, run=run, annotators=annotators)


def mark(conversation: Conversation, annotator, turn_position: int, start: int, end: int,
         grade: str | None = None, memberships: dict[str, list[float]] | None = None):
    """Mark words start..end (0-based, inclusive) of a turn as a nugget, then grade its entity."""
    turn = conversation.turns.get(position=turn_position)
    nugget = edits.create_nugget(annotator=annotator, actor=annotator, turn=turn, start_word=start, end_word=end)
    entity = nugget.entity
    if grade is not None:
        edits.update_entity(
            entity, actor=annotator, expected_version=entity.version,
            grade=Grade.objects.get(campaign=conversation.topic.campaign, label=grade),
        )
    for name, vector in (memberships or {}).items():
        attribute_set = AttributeSet.objects.get(topic_type=conversation.topic.topic_type, name=name)
        edits.set_membership(
            entity, attribute_set, actor=annotator, expected_version=entity.version, vector=vector
        )
    nugget.refresh_from_db()
    return nugget


def make_branching_conversation(campaign, annotator, **where):
    """U1 "Films?" -> S1 "Film Alpha" (position 2, not shown) | S1 "Film Beta" (position 3, shown)
    -> U2 -> S2 "Film Gamma": a regenerated first answer with its follow-up under the shown one."""
    from annotator.models import Turn

    conversation = make_conversation(campaign, [
        ("U", "Films?"), ("S", "Film Alpha"), ("S", "Film Beta"), ("U", "More after Beta?"), ("S", "Film Gamma")],
        annotators=[annotator], **where)
    for position, follows, number, shown in ((2, 1, 1, False), (3, 1, 1, True), (4, 3, 2, True), (5, 4, 2, True)):
        Turn.objects.filter(conversation=conversation, position=position).update(follows=follows, number=number, shown=shown)
    conversation.is_tree = True
    conversation.save()
    return conversation
