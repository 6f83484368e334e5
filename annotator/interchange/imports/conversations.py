"""Importing conversation files into a campaign: all or nothing, every problem by file:line.

    result = import_files(campaign, [("M002-bing-trial1.txt", data)], run="bing-trial1")
    if result.errors: ...   # nothing was written
    result = import_files(campaign, [("conversations.json", export)], run="chatgpt", topic="M003")
    result.read   # ["conversations.json: read as ChatGPT export: 12 conversations, 31 citations"]

Files are parsed by annotator.interchange.formats (the format told by the content: the paper's,
JSONL, or a harvest), then checked against the campaign (topic types, attribute sets and
their group counts, grades, spans, entities already judged), then written where nobody looks, in
short transactions, and published in one short transaction (annotator.interchange.imports.staging): an
import never holds SQLite's only writer for long, and nothing of it is visible before it is whole.

The annotations in the files are one annotator's judgments (``annotator``; default: the
uploading ``actor``, else the campaign's first organiser, else a user named "gold"). They
become that annotator's entities (one per topic and identity key: a URL mentioned in several
conversations is one entity, whose grade and memberships must agree), nuggets and turn
labels; the annotator is assigned the conversation and becomes its gold annotator (unless an
automatic judge: a judge is never gold, and a conversation only judges annotate has none).

The rules are annotator.judgments.edits' (annotator.rules.spans, by SpanSweep: nuggets lie in one system turn
and never overlap; entity_key_and_name for identity; annotator.rules.vectors.check_distribution for vectors),
applied here to whole files in memory instead of row by row. Every judgment an import
writes, changes or deletes (with a replaced conversation) is recorded as an AnnotationEvent,
like a workspace edit, marked `imported` (imports.history): the history shows it, undo does not
take it back.
Replacing a conversation keeps its history: the events move to the replacement, which is
recorded as a "replaced conversation" event (undo never goes back past it).

Harvests (a vendor's export or API log: no topic, no judgments) take their topic from
``topic``; several harvested conversations of one topic and run in one import are that run's
trials (``chatgpt`` -> ``chatgpt-trial1``, ``chatgpt-trial2``...). The systems' own citations
become nuggets of the automatic judge ``citations`` (annotator.rules.citations), proposals the
annotators see in the workspace and that compare_judges measures against the gold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from annotator.interchange.formats import ParseResult, parse_file
from annotator.interchange.imports.conversation_plan import PROGRESS_EVERY, ImportPlan, plan_import, run_from_filename
from annotator.interchange.imports.conversation_writing import write_import
from annotator.interchange.imports.result import ImportResult, read_as
from annotator.interchange.imports import statistics
from annotator.interchange.imports.staging import Cancellation, ImportCancelled, no_collection

__all__ = ["ImportResult", "import_files", "import_parsed", "run_from_filename", "ImportCancelled", "Progress"]

# progress(stage, conversations done so far): stage is "parsing", "checking", "writing" (staging
# starts: nothing is visible until it is published) or "written".
Progress = Callable[[str, int], None]


def import_files(
    campaign,
    files: Iterable[tuple[str, bytes]],
    *,
    run: str | None = None,
    annotator=None,
    replace: bool = False,
    actor=None,
    progress: Progress | None = None,
    topic: str | None = None,
    cancellation: Cancellation | None = None,
) -> ImportResult:
    """Import (name, bytes) files into the campaign: everything or, on any error, nothing.

    ``run``: the run of every conversation (else the file's own ``run=`` / ``"run"``, else the
    file name: ``M002-bing-trial1.txt`` -> ``bing-trial1``). ``replace``: an existing
    conversation of the same topic and run is deleted (with every judgment on it) and
    imported anew; without it, that is an error. ``annotator``: whose judgments the files
    hold, added to conversations already there. ``progress``: called as the import goes (see
    Progress), for the console's background import jobs. ``topic``: the topic of harvested
    conversations (files that name topics keep theirs). ``cancellation``: a background job's
    (annotator.interchange.imports.staging.Cancellation): ImportCancelled, and nothing imported,
    once its organiser cancels it before it publishes.
    """
    files = list(files)
    told = _checked_for_cancellation(progress, cancellation)
    parsed_files, read = [], 0
    # No cyclic collection while the files' conversations are read, checked and written: each
    # full one walks all of them, more as they pile up (8% of a 100,000-conversation import,
    # the part of its time that grew faster than the file: docs/benchmarks.md). What is
    # garbage is collected once the import is over.
    with no_collection():
        for name, data in files:
            before = read
            parsed = parse_file(data, name, lambda n: n % PROGRESS_EVERY or told("parsing", before + n))
            read += len(parsed.conversations)
            parsed_files.append((name, parsed))
        result = _import(campaign, parsed_files, run=run, annotator=annotator, replace=replace, actor=actor, progress=told,
                         topic=topic, cancellation=cancellation)
    # Problems are found stage by stage (reading, then checking against the campaign); the
    # organiser fixes files top to bottom: list them in file order, line by line.
    order = {name: i for i, (name, _data) in enumerate(files)}
    result.errors.sort(key=lambda e: (order.get(e.path, -1), e.line))
    result.warnings.sort(key=lambda e: (order.get(e.path, -1), e.line))
    return result


def import_parsed(campaign, files: Iterable[tuple[str, ParseResult]], *, run: str | None = None, annotator=None,
                  replace: bool = False, actor=None, topic: str | None = None) -> ImportResult:
    """Like import_files, for files already parsed: (name, ParseResult) pairs."""
    return _import(campaign, files, run=run, annotator=annotator, replace=replace, actor=actor,
                   progress=_checked_for_cancellation(None, None), topic=topic, cancellation=None)


def _import(campaign, files: Iterable[tuple[str, ParseResult]], *, run, annotator, replace, actor, progress: Progress,
            topic, cancellation) -> ImportResult:
    plan = ImportPlan(campaign=campaign, result=ImportResult(what="conversations"), actor=actor, annotator_given=annotator,
                      replace=replace)
    result, conversations, names = plan.result, [], []
    for name, parsed in files:
        names.append(name)
        result.errors.extend(parsed.errors)
        result.warnings.extend(parsed.warnings)
        if parsed.ok:
            result.read.append(read_as(name, parsed.format_name or "a conversation file", parsed.conversations))
        conversations.extend(parsed.conversations)
        progress("parsing", len(conversations))
    if not names:
        result.error("", 0, "no files given")
        return result
    plan_import(plan, conversations, run=run, topic=topic, progress=progress)
    if result.errors:
        return result
    progress("writing", 0)
    write_import(plan, cancellation)
    statistics.refresh()
    progress("written", len(plan.conversations))
    return result


def _checked_for_cancellation(progress: Progress | None, cancellation: Cancellation | None) -> Progress:
    """`progress`, and a cancelled job stopped at each report until the import is published
    ("written": too late to cancel)."""
    told = progress or (lambda stage, done: None)

    def progressed(stage: str, done: int) -> None:
        if cancellation is not None and stage != "written":
            cancellation.check()
        told(stage, done)
    return progressed
