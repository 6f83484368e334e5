"""Seeded files to import, in this app's JSONL format (docs/formats.md):

- a campaign's conversations (`conversation_line`, `write_campaign_file`): 2 user + 2 system
  turns, 3 graded nuggets each, an ORIGIN membership on every third, distinct movies everywhere;
  the shape of bench_import.py, bench_background_import.py, bench_campaign_pages.py,
  bench_load.py and bench_compare_runs.py (and of two exporting and importing tests);
- the same conversations judged twice (`write_gold_and_judge_files`): a gold and a noisy copy
  of it, 10 films a conversation, every nugget with ORIGIN and RATINGS memberships; the shape
  of bench_compare_judges.py, bench_adjudication.py and bench_agreement.py.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

ORIGIN_GROUPS = 8


def conversation_line(index: int, topics: int, rng: random.Random) -> dict:
    """Conversation `index` of a campaign of `topics` topics (topic index % topics, run index // topics)."""
    topic, run = index % topics, index // topics
    # Distinct movies everywhere: one entity judged twice in a topic must agree (grade,
    # memberships), and the generator does not try to keep such repeats consistent.
    movies = [1_000_000 + index * 3 + k for k in range(3)]
    rng.shuffle(movies)
    system1 = " ".join(f"Film {m} ({1950 + m % 70}): https://www.imdb.com/title/tt{m}/ is good." for m in movies[:2])
    system2 = f"Also Film {movies[2]} ({1950 + movies[2] % 70}): https://www.imdb.com/title/tt{movies[2]}/ ."
    nuggets = []
    for k, (turn, start) in enumerate(((2, 0), (2, 6), (4, 1))):
        nugget = {"turn": turn, "start": start, "end": start + 3, "grade": ("L0", "L1", "L2")[(index + k) % 3]}
        if k == 0 and index % 3 == 0:
            vector = [0] * ORIGIN_GROUPS
            vector[index % ORIGIN_GROUPS] = 1
            nugget["memberships"] = {"ORIGIN": {"vector": vector, "evidence": "somewhere"}}
        nuggets.append(nugget)
    return {
        "topic": f"M{topic:03d}",
        "run": f"run-{run:03d}",
        "turns": [
            {"role": "user", "text": f"Recommend movies for topic {topic} please"},
            {"role": "system", "text": system1, "label": "o"},
            {"role": "user", "text": "More?"},
            {"role": "system", "text": system2},
        ],
        "nuggets": nuggets,
    }


def branching_line(line: dict, index: int) -> dict:
    """`line` (conversation_line's) with its last answer regenerated: a sibling S2 under U2 (p 0.5
    each) that names another film, judged L1: a tree of two paths."""
    movie = 9_000_000 + index  # no other conversation's film
    turns = [dict(turn, id=f"t{k + 1}", parent=f"t{k}" if k else None) for k, turn in enumerate(line["turns"])]
    turns.append({"id": "t5", "parent": "t3", "role": "system",
                  "text": f"Perhaps Film {movie} ({1950 + movie % 70}): https://www.imdb.com/title/tt{movie}/ instead."})
    return dict(line, turns=turns, nuggets=[*line["nuggets"], {"turn": "t5", "start": 1, "end": 4, "grade": "L1"}])


def write_campaign_file(path: Path, count: int, broken_last: bool = False) -> int:
    """`count` conversations over 100 topics into `path` (its size in bytes); `broken_last`: the
    last line's first nugget ends outside its turn, so an import of the file must refuse it whole."""
    rng = random.Random(20231121)
    topics = 100
    with path.open("w", encoding="utf-8") as out:
        for index in range(count):
            line = conversation_line(index, topics, rng)
            if broken_last and index == count - 1:
                line["nuggets"][0]["end"] = 10_000  # outside the turn
            out.write(json.dumps(line) + "\n")
    return path.stat().st_size


FILMS = 10  # a conversation of the gold and judge files lists 10 films
FILM_WORDS = 6  # "Film <n> (<year>): <url> is good."


def film_line(number: int) -> str:
    return f"Film {number} ({1950 + number % 70}): https://www.imdb.com/title/tt{number}/ is good."


def judged_conversation(topic: int, run: int, runs: int, rng: random.Random, judge: bool) -> dict:
    """The gold's judgments of a conversation (later runs more relevant, so a ranking of the runs
    means something), or with `judge` a noisy copy: misses 10% of the nuggets, cuts 10% of the
    spans a word short, regrades 20%, moves 20% of the ORIGIN memberships."""
    first = 1_000_000 + (topic * runs + run) * FILMS  # distinct films: no entity shared across conversations
    films = list(range(first, first + FILMS))
    split = 4 + (topic + run) % 3
    turns = [
        {"role": "user", "text": f"Recommend time-travel films for topic {topic} please"},
        {"role": "system", "text": " ".join(film_line(f) for f in films[:split]), "label": "o"},
        {"role": "user", "text": "More?"},
        {"role": "system", "text": " ".join(film_line(f) for f in films[split:]), "label": "o"},
    ]
    quality = 0.3 + 0.6 * run / max(1, runs - 1)  # later runs return more relevant films
    nuggets = []
    for k, film in enumerate(films):
        turn, position = (2, k) if k < split else (4, k - split)
        grade = rng.choices(["L0", "L1", "L2"], [1 - quality, quality / 2, quality / 2])[0]
        region = rng.randrange(ORIGIN_GROUPS)
        start, end = position * FILM_WORDS, position * FILM_WORDS + 3
        if judge:
            if rng.random() < 0.1:
                continue  # missed
            if rng.random() < 0.1:
                end -= 1  # a word short: overlaps, not exact
            if rng.random() < 0.2:
                grade = rng.choice(["L0", "L1", "L2"])
            if rng.random() < 0.2:
                region = rng.randrange(ORIGIN_GROUPS)
        vector = [0] * ORIGIN_GROUPS
        vector[region] = 1
        ratings = [0, 0, 0, 0]
        ratings[film % 4] = 1
        nuggets.append({"turn": turn, "start": start, "end": end, "grade": grade,
                        "memberships": {"ORIGIN": {"vector": vector}, "RATINGS": {"vector": ratings}}})
    return {"topic": f"M{topic:03d}", "run": f"run-{run:02d}", "turns": turns, "nuggets": nuggets}


def write_gold_and_judge_files(directory: Path, topics: int, runs: int) -> tuple[Path, Path]:
    """gold.jsonl and judge.jsonl in `directory`: the same topics x runs conversations, judged
    by the gold and by its noisy copy (`judged_conversation`)."""
    paths = []
    for who, judge in (("gold", False), ("judge", True)):
        rng = random.Random(20261123 + judge)
        path = directory / f"{who}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for topic in range(topics):
                for run in range(runs):
                    out.write(json.dumps(judged_conversation(topic, run, runs, rng, judge)) + "\n")
        paths.append(path)
    return paths[0], paths[1]
