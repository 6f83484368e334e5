"""A benchmark's campaign, annotators and graded conversations, built through the product's
own rules: the campaign by the campaign-file loader, the judgments by `annotator.judgments.edits`
as an annotator's saves make them.

The campaign (`BENCH_CAMPAIGN`) is FairWeb's M topic type: grades L0, L1, L2 (gains 0, 0.5,
1, the paper's settings), RATINGS (4 ordinal bands, uniform target, RNOD) and ORIGIN (8
regions, FairWeb's target, JSD). Seeded conversations list movies, one a line, with links.
"""

from __future__ import annotations

PASSWORD = "bench-password-1"

FAIRWEB_ORIGIN_TARGET = [0.244725738, 0.111814346, 0.008438819, 0.154008439,
                         0.099156118, 0.200421941, 0.080168776, 0.101265823]
BENCH_CAMPAIGN = {
    "topic_types": [{"code": "M", "name": "Movies", "attribute_sets": [
        {"name": "RATINGS", "kind": "ordinal", "divergence": "rnod", "groups": ["<100", "100-10K", "10K-1M", ">=1M"],
         "target": "uniform"},
        {"name": "ORIGIN", "kind": "nominal", "divergence": "jsd", "target": FAIRWEB_ORIGIN_TARGET,
         "groups": ["Africa", "America", "Antarctica", "Asia", "Caribbean", "Europe", "Middle East", "Oceania"]},
    ]}],
}


def make_campaign(slug: str, organiser=None):
    """A new campaign `slug` of `BENCH_CAMPAIGN`, loaded as a campaign file is."""
    from annotator.interchange.imports.campaign_file import load_campaign

    campaign = load_campaign({**BENCH_CAMPAIGN, "slug": slug, "name": f"bench {slug}"}, source="bench").campaign
    if organiser is not None:
        campaign.organisers.add(organiser)
    return campaign


def make_annotator(username: str):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password=PASSWORD)


def new_conversation(campaign, turns: list[tuple[str, str]], *, topic: str, run: str, annotators=()):
    """A conversation of `turns` ([("U", text), ("S", text), ...]) in the campaign's topic and
    run (made when new), assigned to `annotators`."""
    from annotator.models import Assignment, Conversation, Run, Topic, TopicType, Turn

    topic_type = TopicType.objects.get(campaign=campaign, code=topic[0])
    topic_row, _ = Topic.objects.get_or_create(campaign=campaign, code=topic, defaults={"topic_type": topic_type})
    system, trial = Run.system_and_trial_of(run)
    run_row, _ = Run.objects.get_or_create(campaign=campaign, name=run, defaults={"system": system, "trial": trial})
    conversation = Conversation.objects.create(topic=topic_row, run=run_row)
    numbers = {"U": 0, "S": 0}
    for position, (role, text) in enumerate(turns, start=1):
        numbers[role] += 1
        Turn.objects.create(conversation=conversation, position=position, role=role, number=numbers[role], text=text)
    for annotator in annotators:
        Assignment.objects.create(conversation=conversation, annotator=annotator)
    return conversation


def movie_line(k: int) -> str:
    return f"Movie number {k} ({1950 + k % 70}): https://www.imdb.com/title/tt{1000000 + k}/ is worth a look."


WORDS_PER_LINE = len(movie_line(1).split())  # 9; the nugget is words 0..4 (title to URL)


def seed_conversation(campaign, annotator, *, nuggets: int, run: str, topic: str = "M002", spare: int = 1,
                      per_turn: int = 30):
    """A conversation with `nuggets` marked, graded nuggets (+ `spare` unmarked movie lines),
    built through the business rules like an annotator would."""
    from annotator.judgments import edits
    from annotator.models import AttributeSet, Grade

    total = nuggets + spare
    turns = []
    for t in range(0, max(total, 1), per_turn):
        turns.append(("U", f"Question {t // per_turn + 1}: more movies about time travel please, with links"))
        turns.append(("S", " ".join(movie_line(k) for k in range(t, min(t + per_turn, total)))))
    conversation = new_conversation(campaign, turns, topic=topic, run=run, annotators=[annotator])
    grades = list(Grade.objects.filter(campaign=campaign).order_by("level"))
    origin = AttributeSet.objects.get(topic_type=conversation.topic.topic_type, name="ORIGIN")
    system_turns = list(conversation.turns.filter(role="S").order_by("position"))
    for k in range(nuggets):
        turn = system_turns[k // per_turn]
        start = (k % per_turn) * WORDS_PER_LINE
        nugget = edits.create_nugget(annotator=annotator, actor=annotator, turn=turn,
                                     start_word=start, end_word=start + 4)
        entity = nugget.entity
        edits.update_entity(entity, actor=annotator, expected_version=entity.version, grade=grades[1 + k % 2])
        if k % 3 == 0:
            vector = [0.0] * 8
            vector[k % 8] = 1.0
            edits.set_membership(entity, origin, actor=annotator, expected_version=entity.version, vector=vector)
    return conversation


def seed_sizes(sizes) -> dict:
    """size -> (annotator, conversation): a campaign with one annotator and one conversation of
    `size` graded nuggets per size (seed_conversation)."""
    campaign = make_campaign("bench")
    seeded = {}
    for size in sizes:
        annotator = make_annotator(f"ann{size}")
        seeded[size] = (annotator, seed_conversation(campaign, annotator, nuggets=size, run=f"run-{size}"))
    return seeded


def spare_span(conversation, nuggets: int, per_turn: int = 30):
    """(turn, start, end) of the first unmarked movie line."""
    system_turns = list(conversation.turns.filter(role="S").order_by("position"))
    turn = system_turns[nuggets // per_turn]
    start = (nuggets % per_turn) * WORDS_PER_LINE
    return turn, start, start + 4
