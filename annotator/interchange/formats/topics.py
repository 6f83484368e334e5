"""Topics files: a campaign's topics in bulk, as an organiser keeps them.

Two shapes, told apart by the first line that is not blank:

- TSV, a topic a line: ``code<TAB>type<TAB>text`` (the text is what annotators read; the type
  may be left empty: then the topic's id names it, M002 -> M, as in the campaign file). A first
  line ``code<TAB>type<TAB>text`` (or ``id<TAB>type<TAB>description``, any case) is a header.
- JSONL, a JSON object a line: ``{"id": "M002", "type": "M", "description": "..."}``, as the
  campaign file writes its topics (``type`` and ``description`` optional).

Every problem is a FormatError at its line; what the topics mean for a campaign (its types,
the codes it has) is checked by annotator.interchange.imports.topics. Pure Python, no Django.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from annotator.interchange.formats.model import FormatError, loads_json

__all__ = ["ParsedTopic", "read_topics", "MAX_TEXT"]

MAX_TEXT = 100_000
_HEADERS = ({"code", "type", "text"}, {"id", "type", "description"})


@dataclass(frozen=True)
class ParsedTopic:
    code: str
    type: str  # "" when the file leaves it to the id
    text: str
    line: int


def read_topics(data: bytes, name: str) -> tuple[list[ParsedTopic], list[FormatError]]:
    """The topics of the file and its problems (any problem: use none of them)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return [], [FormatError(name, 0, f"not UTF-8 text ({error.reason} at byte {error.start})")]
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    if not first:
        return [], [FormatError(name, 0, "no topics in the file")]
    read = _jsonl if first.lstrip().startswith("{") else _tsv
    topics, errors = read(lines, name)
    if not topics and not errors:
        errors.append(FormatError(name, 0, "no topics in the file"))
    return topics, errors


def _tsv(lines: list[str], name: str) -> tuple[list[ParsedTopic], list[FormatError]]:
    topics, errors = [], []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if not topics and not errors and {f.strip().casefold() for f in fields} in _HEADERS:
            continue  # the header
        if len(fields) not in (2, 3):
            errors.append(FormatError(name, number, f"a line is code<TAB>type<TAB>text: found {len(fields)} field"
                                                    f"{'s' if len(fields) != 1 else ''} (a text holds no tab)"))
            continue
        code, kind = fields[0].strip(), fields[1].strip()
        topics.append(ParsedTopic(code, kind, fields[2].strip() if len(fields) == 3 else "", number))
    return topics, errors


def _jsonl(lines: list[str], name: str) -> tuple[list[ParsedTopic], list[FormatError]]:
    topics, errors = [], []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = loads_json(line)
        except json.JSONDecodeError as error:
            errors.append(FormatError(name, number, f"not JSON: {error.msg}"))
            continue
        if not isinstance(value, dict):
            errors.append(FormatError(name, number, 'a line is an object: {"id": ..., "type": ..., "description": ...}'))
            continue
        unknown = sorted(set(value) - {"id", "type", "description"})
        if unknown:
            errors.append(FormatError(name, number, f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
                                                    "(expected id, type, description)"))
            continue
        code, kind, text = value.get("id"), value.get("type", ""), value.get("description", "")
        wrong = [f for f, v in (("id", code), ("type", kind), ("description", text)) if not isinstance(v, str)]
        if wrong:
            errors.append(FormatError(name, number, f"{', '.join(wrong)}: must be text", wrong[0]))
            continue
        topics.append(ParsedTopic(code.strip(), kind.strip(), text.strip(), number))
    return topics, errors
