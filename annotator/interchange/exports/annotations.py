"""The annotation exports: the paper's text format (computed ``wc=`` lines, ``run=`` in each topic
header: importing it gives back the same annotations), JSON Lines (the importer's schema), and
one TSV row per nugget (as pandas would write the frame)."""

from __future__ import annotations

from collections.abc import Iterator

from annotator.interchange.csvsafe import csv_text
from annotator.interchange.exports.batches import conversation_batches, in_chunks, iter_conversations
from annotator.interchange.formats.jsonl import iter_jsonl
from annotator.interchange.formats.paper import iter_paper
from annotator.models import AttributeSet, Campaign
from annotator.rules.vectors import format_vector
from scoring.words import word_position

__all__ = ["iter_paper_export", "iter_jsonl_export", "iter_nuggets_tsv"]

# Conversations a chunk of the text formats: each chunk is a write to the client's socket, and a
# write a conversation cost the paper export a measurable share (docs/benchmarks.md).
CONVERSATIONS_PER_CHUNK = 200


def iter_paper_export(campaign: Campaign, annotator=None) -> Iterator[str]:
    yield from in_chunks(iter_paper(iter_conversations(campaign, annotator, named=True)), CONVERSATIONS_PER_CHUNK)


def iter_jsonl_export(campaign: Campaign, annotator=None) -> Iterator[str]:
    yield from in_chunks(iter_jsonl(iter_conversations(campaign, annotator)), CONVERSATIONS_PER_CHUNK)



def iter_nuggets_tsv(campaign: Campaign, annotator=None) -> Iterator[str]:
    """One row per nugget: topic, run, turn, start, end, text, entity key and name, grade,
    gain, WC, duplicate (a later mention that gains nothing), then per attribute set its
    vector and its evidence. Written as pandas would write the rows' frame (`frame_csv`: the
    same cells, the same quoting), a batch at a time, without building the frame."""
    gains = {g.label: g.gain for g in campaign.grades.all()}
    attribute_names: list[str] = []
    for a in AttributeSet.objects.filter(topic_type__campaign=campaign).order_by("topic_type__code", "position", "name"):
        if a.name not in attribute_names:
            attribute_names.append(a.name)
    columns = ["topic", "run", "turn", "start", "end", "text", "entity_key", "entity_name", "grade", "gain", "wc", "duplicate"]
    for name in attribute_names:
        columns += [name, f"{name}_evidence"]
    # an attribute set named like a column ("wc") replaces that column's cells, as a row dict would
    as_dicts = len(set(columns)) < len(columns)
    once = campaign.duplicates_count_once
    header = csv_text([columns], sep="\t")
    for batch in conversation_batches(campaign, annotator):
        rows = []
        for conversation in batch.conversations:
            parsed = batch.parsed(conversation)
            offsets = parsed.offsets()
            ordered = sorted(((word_position(offsets[n.turn], n.end_word), n) for n in parsed.nuggets),
                             key=lambda pair: pair[0])
            earlier = _named_earlier(parsed, [n for _wc, n in ordered]) if once else None
            for k, (wc, n) in enumerate(ordered):
                row = [parsed.topic, parsed.run, parsed.turns[n.turn].name, n.start_word, n.end_word, n.text,
                       n.entity_key, n.entity_name, n.grade or "", gains.get(n.grade, 0.0) if n.grade else 0.0, wc,
                       bool(once and earlier[k])]
                for name in attribute_names:
                    m = n.memberships.get(name)
                    row += [format_vector(m.vector), m.evidence] if m else ["", ""]
                if as_dicts:
                    cells = dict(zip(columns[:12], row[:12]))
                    for k, name in enumerate(attribute_names):
                        cells[name], cells[f"{name}_evidence"] = row[12 + 2 * k], row[13 + 2 * k]
                    row = [cells[c] for c in columns]
                rows.append(row)
        if rows or header:
            yield header + csv_text(rows, sep="\t")
            header = ""


def _named_earlier(parsed, ordered: list) -> list[bool]:
    """Per nugget of `ordered` (the conversation's, in WC order): whether an earlier nugget on
    its path named its entity (a later mention, which gains nothing). A line's path is the
    conversation; in a tree, the turns from the root to the nugget's (a sibling branch's
    mentions are not before it)."""
    if not parsed.is_tree:
        seen: set[str] = set()
        flags = []
        for n in ordered:
            flags.append(n.entity_key in seen)
            seen.add(n.entity_key)
        return flags
    parents = parsed.parents()
    by_turn: dict[int, list] = {}
    for n in ordered:
        by_turn.setdefault(n.turn, []).append(n)
    before: list[frozenset] = []  # per turn: the keys named on its path before it
    for turn, parent in enumerate(parents):
        before.append(frozenset() if parent is None else
                      before[parent] | {n.entity_key for n in by_turn.get(parent, [])})
    flags, within = [], {}
    for n in ordered:
        seen_here = within.setdefault(n.turn, set())
        flags.append(n.entity_key in before[n.turn] or n.entity_key in seen_here)
        seen_here.add(n.entity_key)
    return flags
