"""An LLM's answer read back into nuggets, or refused: nothing is ever guessed.

    reading = read_answer(text, finish_reason, topic, turn_text, read_evidence)

- Broken JSON, or JSON cut at the token limit (finish_reason "length"), or JSON that is not
  {"entities": [...]}: the whole turn is refused (`reading.refused`), never half-read.
- Each entity's quote is located as words of the turn (scoring.words.tokenise, the one word
  rule): the exact words, else the same words up to letter case and the punctuation around
  them. A quote not found is reported and its entity skipped.
- A quote found again at words an earlier entity already holds is the same mention repeated
  (small models repeat themselves): merged, counted in `duplicates`. One overlapping an
  earlier entity's words in part is reported and skipped (a judge's nuggets never overlap).
- A grade that is not one of the campaign's is reported and the entity skipped.
- Per attribute set: evidence goes through the set's helper (`read_evidence`, as if typed);
  a set without a helper takes one of its groups. Evidence the helper cannot read, or an
  unknown group, is reported and that membership left out; empty, or "unknown", is no
  membership.
- The entity is the URL in the quoted words if they hold one (the workspace's identity rule),
  else the URL or name the model gave, else the quoted words themselves.
- An entity mentioned again elsewhere keeps the grade and memberships of its first mention
  (one entity, one judgment per topic); a different judgment later is reported.

Pure Python, no Django.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from annotator.llm_judge.prompt import UNKNOWN_GROUP, TopicSpec
from annotator.rules.identity import entity_key_and_name, find_url
from scoring.words import span_text, tokenise

__all__ = ["Proposal", "TurnReading", "read_answer", "locate"]

# Characters around a word that a quote may drop or add (quotation marks, brackets, list marks).
_EDGES = "\"'“”‘’«»*_`()[]{}<>.,;:!?-–—•"
QUOTE_SHOWN = 80  # characters of a quote shown in a report


@dataclass(frozen=True)
class Proposal:
    """One nugget the answer proposes: words start..end (0-based, inclusive) of the turn."""

    start: int
    end: int
    entity: str | None  # the URL or name the model gave (None: the nugget's own words name it)
    grade: str
    memberships: dict[str, tuple[float, ...]] = field(default_factory=dict, hash=False)


@dataclass
class TurnReading:
    proposals: list[Proposal] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    duplicates: int = 0  # repeated mentions merged
    refused: bool = False  # nothing of the answer is used


def _plain(word: str) -> str:
    return word.strip(_EDGES).casefold()


def locate(quote: str, words: list[str], taken: list[tuple[int, int]] = ()) -> tuple[int, int] | None:
    """Where the quote's words are in the turn's `words`: the first place not in `taken`, else
    the first place at all (a repeated mention); None when the words are not there."""
    wanted = tokenise(quote)
    if not wanted:
        return None
    places = _places(wanted, words)
    if not places:
        plain = [_plain(w) for w in wanted]
        if not any(plain):
            return None
        places = _places(plain, [_plain(w) for w in words])
    if not places:
        return None
    free = [p for p in places if not any(p[0] <= end and start <= p[1] for start, end in taken)]
    return (free or places)[0]


def _places(wanted: list[str], words: list[str]) -> list[tuple[int, int]]:
    n = len(wanted)
    first = wanted[0]
    return [
        (i, i + n - 1) for i in range(len(words) - n + 1)
        if words[i] == first and words[i:i + n] == wanted
    ]


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return repr(text if len(text) <= QUOTE_SHOWN else text[:QUOTE_SHOWN - 1] + "…")


def read_answer(
    text: str,
    finish_reason: str | None,
    topic: TopicSpec,
    turn_text: str,
    read_evidence: Callable[[str, str], tuple[float, ...]],
    judged: dict[str, tuple[str, dict]] | None = None,
) -> TurnReading:
    """The proposals of one answer about one system turn, and what was wrong with it.
    `read_evidence(set name, evidence)` is the set's helper (raises ValueError with the reason).
    `judged`: entity key -> (grade, memberships) of the entities the conversation's earlier turns
    proposed (filled in as this turn is read), so that an entity keeps its first judgment."""
    reading = TurnReading()
    judged = {} if judged is None else judged
    try:
        answer = json.loads(text)
    except (TypeError, ValueError) as error:
        reading.refused = True
        if finish_reason == "length":
            reading.problems.append(f"the answer was cut at the token limit ({len(text)} characters of unfinished JSON); "
                                    "none of it is used")
        else:
            reading.problems.append(f"the answer is not JSON ({error}); none of it is used")
        return reading
    entities = answer.get("entities") if isinstance(answer, dict) else None
    if not isinstance(entities, list) or not all(isinstance(e, dict) for e in entities):
        reading.refused = True
        reading.problems.append('the answer is not {"entities": [objects]}; none of it is used')
        return reading

    words = tokenise(turn_text)
    grades = {g.label for g in topic.grades}
    taken: list[tuple[int, int]] = []  # located spans, in the order found
    for i, item in enumerate(entities):
        where = f"entities[{i}]"
        quote = item.get("quote")
        if not isinstance(quote, str) or not quote.strip():
            reading.problems.append(f"{where}: no quote; skipped")
            continue
        span = locate(quote, words, taken)
        if span is None:
            reading.problems.append(f"{where}: quote not found in the turn: {_short(quote)}; skipped")
            continue
        if span in taken:
            reading.duplicates += 1
            first = next(p for p in reading.proposals if (p.start, p.end) == span)
            if item.get("grade") != first.grade:
                reading.problems.append(f"{where}: the same words again, judged differently than at its first mention "
                                        f"({_short(item.get('grade'))}, not {first.grade}); merged, the first judgment kept")
            continue
        clash = next(((s, e) for s, e in taken if span[0] <= e and s <= span[1]), None)
        if clash is not None:
            reading.problems.append(f"{where}: the quote {_short(quote)} overlaps the words of an earlier entity "
                                    f"({_short(span_text(words, *clash))}); skipped")
            continue
        grade = item.get("grade")
        if grade not in grades:
            reading.problems.append(f"{where}: {_short(grade)} is not a grade of the campaign ({', '.join(sorted(grades))}); "
                                    "skipped")
            continue
        entity = item.get("entity")
        entity = entity.strip() if isinstance(entity, str) and entity.strip() else None
        if entity is not None and entity_key_and_name(entity)[0] is None or find_url(span_text(words, *span)):
            # words holding a URL are that URL's entity (the workspace's identity rule), whatever
            # the model wrote; a name that names nothing: the nugget's own words name it
            entity = None
        memberships = _memberships(item, topic, where, read_evidence, reading.problems)
        key = entity_key_and_name(entity or span_text(words, *span))[0]
        if key in judged:
            first_grade, first_memberships = judged[key]
            if grade != first_grade or any(first_memberships.get(n, v) != v for n, v in memberships.items()):
                reading.problems.append(f"{where}: {_short(entity or quote)} is judged differently than at its first "
                                        "mention; the first judgment is kept")
            grade, memberships = first_grade, first_memberships
        else:
            judged[key] = (grade, memberships)
        taken.append(span)
        reading.proposals.append(Proposal(span[0], span[1], entity, grade, memberships))
    reading.proposals.sort(key=lambda p: p.start)
    return reading


def _memberships(item: dict, topic: TopicSpec, where: str, read_evidence, problems: list[str]) -> dict[str, tuple[float, ...]]:
    result: dict[str, tuple[float, ...]] = {}
    for spec in topic.sets:
        value = item.get(spec.name)
        if value is None:
            continue
        if not isinstance(value, str):
            problems.append(f"{where}: {spec.name}: {_short(value)} is not text; no membership")
            continue
        value = value.strip()
        if not value or value.casefold() == UNKNOWN_GROUP:
            continue
        if spec.reads_evidence:
            try:
                result[spec.name] = tuple(read_evidence(spec.name, value))
            except ValueError as error:
                problems.append(f"{where}: {spec.name}: the evidence {_short(value)} cannot be read ({error}); no membership")
            continue
        if value not in spec.groups:
            problems.append(f"{where}: {spec.name}: {_short(value)} is not a group ({', '.join(spec.groups)}); no membership")
            continue
        result[spec.name] = tuple(1.0 if g == value else 0.0 for g in spec.groups)
    return result
