"""The campaign as a prompt, one system turn at a time, and the JSON schema of the answer.

What an annotator is told is what the model is told: the topic (its code and text, the
request the user made), the kind of entity the topic type is about, the campaign's grades
with their gains, and per attribute set its groups and what to write for it: the evidence the
set's helper reads (a count such as "1.3M" for ordinal bands, the values of a mapping such as
countries) or, for a set without a helper, one of its groups. Then the system turn's text.

The answer is asked for as structured output, a JSON schema simple enough for llama.cpp's
grammar (objects, arrays, strings and enums only): a list of entities, each with the exact
words quoted from the turn, its URL or name, a grade and one field per attribute set.
Changing what is asked changes PROMPT_VERSION (it is recorded with every run and is part of
the cache key through the prompt itself).

Pure Python, no Django.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["PROMPT_VERSION", "QUOTES", "QUOTES_FREE", "QUOTES_LINES", "GradeSpec", "SetSpec", "TopicSpec", "UNKNOWN_GROUP", "build_messages", "answer_schema"]

PROMPT_VERSION = "gfrc-llm-judge-v1"
# How quotes are asked for: any words of the turn (a strong model), or one of its lines, the
# grammar forcing an exact copy (a small model: see answer_schema).
QUOTES_FREE, QUOTES_LINES = "free", "lines"
QUOTES = (QUOTES_FREE, QUOTES_LINES)
UNKNOWN_GROUP = "unknown"  # what a set without a helper may answer when the turn does not say
# Bounds the grammar puts on free text: a small model otherwise rambles into the token limit.
MAX_ENTITY_CHARACTERS = 200  # a URL or a name
MAX_EVIDENCE_CHARACTERS = 80  # "1.3M"; "United States, United Kingdom, Canada"
MAPPING_EXAMPLES = 4  # values of a mapping helper named in the prompt as examples


@dataclass(frozen=True)
class GradeSpec:
    label: str
    gain: float


@dataclass(frozen=True)
class SetSpec:
    """An attribute set as the prompt and the answer reader need it."""

    name: str
    kind: str  # nominal or ordinal
    groups: tuple[str, ...]
    helper: dict = field(default_factory=dict, hash=False, compare=False)

    @property
    def reads_evidence(self) -> bool:
        """The set has a helper: the model writes evidence, the helper makes the vector."""
        return bool(self.helper) and ("bands" in self.helper or "mapping" in self.helper)


@dataclass(frozen=True)
class TopicSpec:
    code: str
    description: str
    entity_kind: str  # the topic type's name: Movies, Researchers...
    grades: tuple[GradeSpec, ...]
    sets: tuple[SetSpec, ...]


SYSTEM = (
    "You are an assessor in an evaluation of conversational search systems for relevance and group fairness. "
    "You read one answer of a system and list the entities it returns, exactly as they appear in the answer. "
    "You answer with JSON only."
)


def _grade_lines(grades: tuple[GradeSpec, ...]) -> list[str]:
    top = max((g.gain for g in grades), default=1.0) or 1.0
    lines = []
    for grade in grades:
        if not grade.gain:  # (a gain is never negative)
            meaning = "not relevant to the request"
        elif grade.gain >= top:
            meaning = "fully relevant"
        else:
            meaning = "partly relevant"
        lines.append(f"- {grade.label}: {meaning} (gain {grade.gain:g})")
    return lines


def _set_lines(spec: SetSpec) -> list[str]:
    groups = ", ".join(spec.groups)
    head = f"- {spec.name} ({spec.kind}; groups: {groups}): "
    if spec.reads_evidence and "bands" in spec.helper:
        limits = ", ".join(str(int(b)) if float(b).is_integer() else f"{b:g}" for b in spec.helper["bands"])
        return [head + f"write the count the group is decided by, as a number such as 1.3M, 898K or 43000 "
                       f"(band limits {limits}); empty if you do not know it."]
    if spec.reads_evidence:
        examples = ", ".join(list(spec.helper["mapping"])[:MAPPING_EXAMPLES])
        return [head + f"write the values it is decided by, comma-separated (such as {examples}); empty if you do not know them."]
    return [head + f"write the one group it belongs to, or {UNKNOWN_GROUP}."]


def build_messages(topic: TopicSpec, *, turn_name: str, turn_text: str, request: str) -> list[dict[str, str]]:
    """The chat messages asking for the entities of one system turn (`request`: the user turn
    before it, the question it answers)."""
    lines = [
        f"Topic {topic.code}: {topic.description.strip() or '(no description)'}",
        f"The user asked: {request.strip()}",
        f"The entities of this topic are {topic.entity_kind or 'things the answer returns'}.",
        "",
        "Grades:",
        *_grade_lines(topic.grades),
    ]
    if topic.sets:
        lines += ["", "For each entity, per attribute set:"]
        for spec in topic.sets:
            lines += _set_lines(spec)
    lines += [
        "",
        f"The system's answer ({turn_name}):",
        "<<<",
        turn_text,
        ">>>",
        "",
        "List every entity the answer returns, once each, in the order of the answer. For each give: "
        "quote, the exact words of the answer that name it, copied character for character (usually its whole line); "
        "entity, its URL if the answer gives one, else its name; grade; and the attribute set fields. "
        "Do not list an entity twice.",
    ]
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


def answer_schema(topic: TopicSpec, *, max_entities: int = 50, lines: list[str] | None = None) -> dict:
    """The JSON schema of an answer: {"entities": [{"quote", "entity", "grade", <set>...}]}.

    With `lines` (the turn's lines, QUOTES_LINES), a quote is one of them: the grammar of a
    server such as llama.cpp then only lets the model copy a line, which a small model cannot
    be trusted to do, and at most one entity per line is asked for."""
    quote: dict = {"type": "string"}
    if lines:
        quote = {"type": "string", "enum": list(dict.fromkeys(lines))}
        max_entities = min(max_entities, len(quote["enum"]))
    properties: dict[str, dict] = {
        "quote": quote,
        "entity": {"type": "string", "maxLength": MAX_ENTITY_CHARACTERS},
        "grade": {"type": "string", "enum": [g.label for g in topic.grades]},
    }
    for spec in topic.sets:
        properties[spec.name] = (
            {"type": "string", "maxLength": MAX_EVIDENCE_CHARACTERS} if spec.reads_evidence
            else {"type": "string", "enum": [*spec.groups, UNKNOWN_GROUP]}
        )
    return {
        "type": "object",
        "properties": {
            "entities": {
                "type": "array",
                "items": {"type": "object", "properties": properties, "required": list(properties)},
                "maxItems": max_entities,
            }
        },
        "required": ["entities"],
    }
