"""Importing ranked-list runs (TREC run files) into a campaign, all or nothing.

A file is one run, named by its tag (or by the name given, for a single file). Each topic's
list is the file's order, as NTCIREVAL scores it; the rank and score columns are kept beside
it, and where they disagree with that order the reader warns. Documents are keyed like
entities (`rules.identity.document_key`), so a run is scored from whatever judgments the
campaign has for those keys. Re-importing a run replaces its lists.

A list is stored as what it is (models.RankedList): one row per run and topic holding the
documents as numbers into the topic's judged documents (models.TopicDocument), the others'
keys apart. A plain, sound file is read as columns at the speed of a split and a dictionary
look-up per line (`formats.ntcireval.read_run_columns`); any other is read line by line
(`read_run`), which says what is wrong and where, as `file:line`.

Files are read, checked and written one at a time inside one transaction (memory stays that
of one file, however many runs); any problem in any file and the transaction is rolled back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.db import transaction

from annotator.interchange.formats.model import FormatError
from annotator.interchange.formats.ntcireval import RunColumns, TopicColumns, read_run, read_run_columns, run_columns
from annotator.interchange.rows import insert_rows
from annotator.models import Campaign, Entity, RankedList, Run, Topic, TopicDocument
from annotator.rules.identity import document_key
from annotator.rules.ids import RUN, id_problem

__all__ = ["RunImport", "import_runs", "encode_list", "stored_lists"]


@dataclass
class RunImport:
    errors: list[FormatError] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)
    imported: list[tuple[str, int, int, bool]] = field(default_factory=list)  # run, topics, documents, replaced

    def summary(self) -> str:
        if self.errors:
            return f"Nothing imported: {len(self.errors)} problem(s)."
        return "; ".join(f"run {name}: {topics} topic(s), {documents} document(s){' (replaced)' if replaced else ''}"
                         for name, topics, documents, replaced in self.imported)


class _RollBack(Exception):
    pass


def import_runs(campaign: Campaign, files: list[tuple[str, bytes]], name: str | None = None) -> RunImport:
    """Import (file name, bytes) run files; `name` names the run of a single file."""
    result = RunImport()
    if name is not None and len(files) != 1:
        result.errors.append(FormatError(files[0][0] if files else "-", 0, "a run name names one run: give one file"))
        return result
    try:
        with transaction.atomic():
            _import(campaign, files, name, result)
            if result.errors:
                raise _RollBack
    except _RollBack:
        result.imported = []
    return result


class _Catalogue:
    """The campaign's judged documents by number (TopicDocument), and the keys judged now (an
    entity of the topic has them): a key judged now and not numbered yet gets the next number."""

    def __init__(self, campaign: Campaign):
        self.numbers: dict[int, dict[str, int]] = {}
        for topic_id, number, key in TopicDocument.objects.filter(topic__campaign=campaign).values_list("topic_id", "number", "key"):
            self.numbers.setdefault(topic_id, {})[key] = number
        self.judged: dict[int, set[str]] = {}
        for topic_id, key in Entity.objects.filter(topic__campaign=campaign).order_by().values_list("topic_id", "key").distinct():
            self.judged.setdefault(topic_id, set()).add(key)
        self.new: list[tuple[int, int, str]] = []

    def places(self, topic_id: int, keys: list[str]) -> tuple[np.ndarray, list[str]]:
        """Each key's place in a stored list: its number, or -(j + 1) for the j-th unjudged key."""
        numbers = self.numbers.setdefault(topic_id, {})
        get = numbers.get
        places = np.array([get(key, -1) for key in keys], dtype="<i4")
        unjudged: list[str] = []
        missing = np.flatnonzero(places < 0)
        if missing.size:
            judged = self.judged.get(topic_id, set())
            for i in missing.tolist():
                key = keys[i]
                if key in judged:
                    places[i] = numbers[key] = len(numbers)
                    self.new.append((topic_id, len(numbers) - 1, key))
                else:
                    unjudged.append(key)
                    places[i] = -len(unjudged)
        return places, unjudged

    def write(self) -> None:
        insert_rows(TopicDocument, ["topic_id", "number", "key"], self.new)
        self.new = []


def encode_list(places: np.ndarray, unjudged: list[str], columns: TopicColumns) -> tuple:
    """(length, documents, unjudged, scores, stated_ranks) as a RankedList stores them."""
    ranks = columns.ranks.astype("<i8")
    natural = ranks.size and ranks[0] == 1 and np.array_equal(ranks, np.arange(1, ranks.size + 1))
    return (len(places), places.astype("<i4").tobytes(), "\n".join(unjudged), columns.scores.astype("<f8").tobytes(),
            b"" if natural else ranks.tobytes())


def _keys(documents: list[str]) -> list[str]:
    """The documents' entity keys: the ids themselves unless one may be a URL (`://` or `www.`)."""
    joined = "\n".join(documents)
    if "://" in joined or "www." in joined.lower():
        return [document_key(d) for d in documents]
    return documents


def _import(campaign: Campaign, files, name, result: RunImport) -> None:
    topics = dict(Topic.objects.select_for_update().filter(campaign=campaign).values_list("code", "pk"))
    runs = {r.name: r for r in Run.objects.filter(campaign=campaign)}
    catalogue = _Catalogue(campaign)
    named: dict[str, str] = {}  # run name -> the file it came from
    for path, data in files:
        columns = read_run_columns(data, path)
        lists = _lists(columns, topics) if columns is not None else None
        if lists is None:  # read line by line: every problem with its line
            read = read_run(data, path)
            result.errors.extend(read.errors)
            result.warnings.extend(read.warnings)
            columns = run_columns(read.content) if read.content.tag is not None else None
            if columns is None:
                if not read.errors:
                    result.errors.append(FormatError(path, 0, "no run lines (`topic Q0 doc rank score tag`)"))
                continue
        run_name = name or columns.tag
        if (problem := id_problem(RUN, run_name)) is not None:
            result.errors.append(FormatError(path, 0, f"{problem}: it cannot name a run (at most 100 characters, no spaces)"))
            continue
        if run_name in named:
            result.errors.append(FormatError(path, 0, f"run {run_name} is also in {named[run_name]}"))
            continue
        named[run_name] = path
        run = runs.get(run_name)
        if run is not None and run.kind != Run.Kind.RANKED_LISTS:
            result.errors.append(FormatError(path, 0, f"run {run_name} is a conversation run: name this one otherwise (--name)"))
            continue
        if lists is None:
            _check_lines(path, read.content.lines, topics, result)
        if result.errors:
            continue  # keep reading: every file's problems are reported, nothing is written
        if lists is None:
            lists = _lists(columns, topics)
        replaced = run is not None
        if run is None:
            system, trial = Run.system_and_trial_of(run_name)
            run = runs[run_name] = Run.objects.create(campaign=campaign, name=run_name, kind=Run.Kind.RANKED_LISTS,
                                                      system=system, trial=trial, source=path[:500])
        else:
            RankedList.objects.filter(run=run).delete()
            Run.objects.filter(pk=run.pk).update(source=path[:500])
        rows = []
        for topic_id, keys, topic_columns in lists:
            places, unjudged = catalogue.places(topic_id, keys)
            rows.append((run.pk, topic_id, *encode_list(places, unjudged, topic_columns)))
        catalogue.write()
        insert_rows(RankedList, ["run_id", "topic_id", "length", "documents", "unjudged", "scores", "stated_ranks"], rows)
        result.imported.append((run_name, len(rows), sum(row[2] for row in rows), replaced))


def _lists(columns: RunColumns, topics: dict[str, int]) -> list[tuple[int, list[str], TopicColumns]] | None:
    """(topic id, keys, columns) of each topic's list; None when a topic is not the campaign's
    or two ids of a list are one page (read line by line then, to say where)."""
    lists = []
    for code, topic_columns in columns.topics.items():
        topic_id = topics.get(code)
        if topic_id is None:
            return None
        keys = _keys(topic_columns.documents)
        if keys is not topic_columns.documents and len(set(keys)) != len(keys):
            return None
        lists.append((topic_id, keys, topic_columns))
    return lists


def _check_lines(path: str, lines, topics: dict[str, int], result: RunImport) -> None:
    """What the campaign says of a file's lines: unknown topics (once each) and two ids of
    one page are errors, each with its line."""
    keys: dict[tuple[str, str], int] = {}
    unknown: set[str] = set()
    for line in lines:
        if topics.get(line.topic) is None:
            if line.topic not in unknown:
                unknown.add(line.topic)
                result.errors.append(FormatError(path, line.line, f"no topic {line.topic[:40]!r} in the campaign"))
            continue
        key = document_key(line.document)
        if (line.topic, key) in keys:
            result.errors.append(FormatError(path, line.line, f"{line.document[:100]} is the page ranked at line "
                                                              f"{keys[(line.topic, key)]} for {line.topic}"))
            continue
        keys[(line.topic, key)] = line.line


def stored_lists(run: Run) -> dict[str, list[tuple[str, int, float]]]:
    """topic code -> the run's list as stored: (document key, stated rank, score) in the file's order."""
    out = {}
    rows = RankedList.objects.filter(run=run).order_by("topic__code").values_list(
        "topic_id", "topic__code", "documents", "unjudged", "scores", "stated_ranks")
    topic_ids = {row[0] for row in rows}
    keys: dict[int, dict[int, str]] = {}
    for topic_id, number, key in TopicDocument.objects.filter(topic_id__in=topic_ids).values_list("topic_id", "number", "key"):
        keys.setdefault(topic_id, {})[number] = key
    for topic_id, code, documents, unjudged, scores, stated in rows:
        places = np.frombuffer(bytes(documents), dtype="<i4")
        others = unjudged.split("\n")
        ranks = np.frombuffer(bytes(stated), dtype="<i8") if stated else np.arange(1, places.size + 1)
        out[code] = [(keys[topic_id][p] if p >= 0 else others[-p - 1], int(r), float(s))
                     for p, r, s in zip(places.tolist(), ranks.tolist(), np.frombuffer(bytes(scores), dtype="<f8").tolist())]
    return out
