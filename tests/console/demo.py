"""A demo-like campaign for console tests, the browser test and the screenshots: several topics
and runs, two annotators (some conversations judged by both, with disagreements), turn labels.
Built through tests.factories and annotator.judgments.edits, like every test campaign."""

from __future__ import annotations

import random

from annotator.judgments import edits
from annotator.models import Assignment, Grade
from scoring.words import tokenise
from tests.factories import make_campaign, make_conversation, make_user, mark

MOVIES = [
    ("Back to the Future (1985)", "tt0088763", 3, [0, 1, 0, 0, 0, 0, 0, 0]),
    ("The Terminator (1984)", "tt0088247", 2, [0, 0.5, 0, 0, 0, 0.5, 0, 0]),
    ("Groundhog Day (1993)", "tt0107048", 2, [0, 1, 0, 0, 0, 0, 0, 0]),
    ("Interstellar (2014)", "tt0816692", 3, [0, 2 / 3, 0, 0, 0, 1 / 3, 0, 0]),
    ("The Time Machine (1960)", "tt0054387", 2, [0, 1, 0, 0, 0, 0, 0, 0]),
    ("12 Monkeys (1995)", "tt0114746", 2, [0, 1, 0, 0, 0, 0, 0, 0]),
    ("Looper (2012)", "tt1276104", 2, [0, 0.5, 0, 0.5, 0, 0, 0, 0]),
    ("Timecrimes (2007)", "tt0480669", 1, [0, 0, 0, 0, 0, 1, 0, 0]),
    ("Primer (2004)", "tt0390384", 1, [0, 1, 0, 0, 0, 0, 0, 0]),
    ("Your Name (2016)", "tt5311514", 2, [0, 0, 0, 1, 0, 0, 0, 0]),
    ("Predestination (2014)", "tt2397535", 2, [0, 0, 0, 0, 0, 0, 0, 1]),
    ("The Girl Who Leapt Through Time (2006)", "tt0808506", 1, [0, 0, 0, 1, 0, 0, 0, 0]),
    ("Tenet (2020)", "tt6723592", 2, [0, 0.5, 0, 0, 0, 0.5, 0, 0]),
    ("Mirage (2018)", "tt6628394", 1, [0, 0, 0, 0, 0, 1, 0, 0]),
    ("About Time (2013)", "tt2194499", 2, [0, 0, 0, 0, 0, 1, 0, 0]),
    ("Coherence (2013)", "tt2866360", 1, [0, 1, 0, 0, 0, 0, 0, 0]),
]
TOPICS = ["M001", "M002", "M003", "M004", "M005", "M006"]
RUNS = ["bard-trial1", "bing-trial1", "chatgpt-trial1"]


def _system_turn(rng: random.Random, movies, intro_words: int) -> tuple[str, list[tuple[int, int, tuple]]]:
    """A system turn listing `movies`; returns its text and the (start, end) word span of each."""
    words = ("Here are some science fiction films about time travel that you may enjoy " * 8).split()[:intro_words]
    spans = []
    for movie in movies:
        title, imdb, _, _ = movie
        line = f"{title}: https://www.imdb.com/title/{imdb}/".split()
        start = len(words)
        words.extend(line)
        spans.append((start, len(words) - 1, movie))
        words.extend(rng.choice(["A classic.", "Worth watching.", "Mind-bending.", "A cult favourite."]).split())
    words.extend("I hope this helps!".split())
    return " ".join(words), spans


def build_demo(organiser_username: str = "org", slug: str = "fw", seed: int = 7, n_topics: int = len(TOPICS)):
    """Returns (campaign, organiser, [annotators])."""
    rng = random.Random(seed)
    organiser = make_user(organiser_username)
    ann, bob = make_user("ann"), make_user("bob")
    campaign = make_campaign(slug, organiser=organiser)
    campaign.name = "FairWeb pilot (demo)"
    campaign.save()
    grades = {g.level: g for g in Grade.objects.filter(campaign=campaign)}
    ratings_of = {1: [0, 1, 0, 0], 2: [0, 0, 1, 0], 3: [0, 0, 0, 1]}
    for t, topic in enumerate(TOPICS[:n_topics]):
        for r, run in enumerate(RUNS):
            chosen = rng.sample(MOVIES, 6)
            first_n = {"bard-trial1": rng.choice([0, 1, 2]), "bing-trial1": rng.choice([3, 4]), "chatgpt-trial1": rng.choice([2, 3])}[run]
            intro = {"bard-trial1": 120, "bing-trial1": 12, "chatgpt-trial1": 40}[run]
            s1, spans1 = _system_turn(rng, chosen[:first_n], intro)
            s2, spans2 = _system_turn(rng, chosen[first_n:first_n + 3], 10)
            turns = [("U", "Please list sci-fi movies that feature time travel, with their IMDb URLs."), ("S", s1),
                     ("U", "Can you name a few more?"), ("S", s2)]
            double = t < 3 and r == 1 or t == 0
            annotators = [ann, bob] if double else [ann if (t + r) % 2 == 0 else bob]
            conversation = make_conversation(campaign, turns, topic=topic, run=run, annotators=annotators)
            for who in annotators:
                for position, spans in ((2, spans1), (4, spans2)):
                    for start, end, movie in spans:
                        _, imdb, level, origin = movie
                        grade_level = 2 if level >= 2 else 1
                        if who is bob and imdb in ("tt0816692", "tt0808506"):
                            grade_level = 1 if grade_level == 2 else 2  # bob disagrees on two films
                        if who is bob and imdb == "tt2866360":
                            continue  # and misses one
                        nugget = edits.create_nugget(
                            annotator=who, actor=who, turn=conversation.turns.get(position=position),
                            start_word=start, end_word=end,
                        )
                        entity = nugget.entity
                        if entity.grade_id is None:
                            edits.update_entity(entity, actor=who, expected_version=entity.version, grade=grades[grade_level])
                            for name, vector in (("RATINGS", ratings_of[level]), ("ORIGIN", origin)):
                                from annotator.models import AttributeSet

                                a = AttributeSet.objects.get(topic_type=conversation.topic.topic_type, name=name)
                                edits.set_membership(entity, a, actor=who, expected_version=entity.version, vector=vector)
                for turn in conversation.turns.filter(role="S").order_by("position"):
                    has = turn.nuggets.filter(annotator=who).exists()
                    label = "o" if has and rng.random() > 0.3 else "x"
                    if turn.number == 2 and run == "bard-trial1" and t == 5:
                        label = "-"
                    edits.set_turn_label(turn, annotator=who, actor=who, label=label, expected_version=None)
    # every demo judgment is finished: each annotator says so, by the one rule of "done"
    from annotator.judgments.completion import mark_done_if_ready

    for who in (ann, bob):
        mark_done_if_ready(campaign, who.pk, list(Assignment.objects.filter(annotator=who).values_list("conversation_id", flat=True)))
    return campaign, organiser, [ann, bob]


__all__ = ["build_demo", "mark", "tokenise"]
