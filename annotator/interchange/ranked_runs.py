"""Importing ranked-list runs (TREC run files) into a campaign, all or nothing.

A file is one run, named by its tag (or by the name given, for a single file). Each topic's
list is the file's order, as NTCIREVAL scores it; the rank and score columns are kept beside
it, and where they disagree with that order the reader warns. Documents are keyed like
entities (`rules.identity.document_key`), so a run is scored from whatever judgments the
campaign has for those keys. Re-importing a run replaces its lists.

Files are read, checked and written one at a time inside one transaction (memory stays that
of one file, however many runs); any problem in any file and the transaction is rolled back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from annotator.interchange.formats.model import FormatError
from annotator.interchange.formats.ntcireval import read_run
from annotator.interchange.rows import insert_rows
from annotator.models import Campaign, RankedDocument, Run, Topic
from annotator.rules.identity import document_key
from annotator.rules.ids import RUN, id_problem

__all__ = ["RunImport", "import_runs"]


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


def _import(campaign: Campaign, files, name, result: RunImport) -> None:
    topics = dict(Topic.objects.filter(campaign=campaign).values_list("code", "pk"))
    runs = {r.name: r for r in Run.objects.filter(campaign=campaign)}
    named: dict[str, str] = {}  # run name -> the file it came from
    for path, data in files:
        read = read_run(data, path)
        result.errors.extend(read.errors)
        result.warnings.extend(read.warnings)
        run_file = read.content
        if run_file.tag is None:
            if not read.errors:
                result.errors.append(FormatError(path, 0, "no run lines (`topic Q0 doc rank score tag`)"))
            continue
        run_name = name or run_file.tag
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
        rows = _rows(path, run_file.lines, topics, result)
        if result.errors:
            continue  # keep reading: every file's problems are reported, nothing is written
        replaced = run is not None
        if run is None:
            system, trial = Run.system_and_trial_of(run_name)
            run = runs[run_name] = Run.objects.create(campaign=campaign, name=run_name, kind=Run.Kind.RANKED_LISTS,
                                                      system=system, trial=trial, source=path[:500])
        else:
            RankedDocument.objects.filter(run=run).delete()
            Run.objects.filter(pk=run.pk).update(source=path[:500])
        run_id = run.pk
        insert_rows(RankedDocument, ["run_id", "topic_id", "rank", "document", "key", "stated_rank", "score"],
                    ((run_id, *row) for row in rows))
        result.imported.append((run_name, len({row[0] for row in rows}), len(rows), replaced))


def _rows(path: str, lines, topics: dict[str, int], result: RunImport) -> list[tuple]:
    """(topic id, place in the file's order, document, key, stated rank, score) of every line;
    unknown topics (once each) and two ids of one page are errors."""
    rows = []
    places: dict[str, int] = {}
    keys: dict[tuple[str, str], int] = {}
    unknown: set[str] = set()
    for line in lines:
        topic_id = topics.get(line.topic)
        if topic_id is None:
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
        places[line.topic] = places.get(line.topic, 0) + 1
        rows.append((topic_id, places[line.topic], line.document, key, line.rank, line.score))
    return rows
