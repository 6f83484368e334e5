"""The one catalogue of a campaign's exports: what each kind is called, says, and is written by.

The console's exports page and downloads, the API's ``exports/<kind>/`` and the commands
(``export_annotations --format``, ``export_scores --format``) all read `EXPORTS`; an export
exists, with one label and one file name, exactly when it is listed here.

Every export streams: conversations are read from the database in batches and written out as
they come (annotator.interchange.exports.batches), so the console serves a campaign of any size
as a download and the commands write the same chunks to files. The kinds (docs/formats.md,
"Exports"):

- ``paper``, ``jsonl``, ``nuggets-tsv``: the judgments (exports.annotations);
- ``qrels``: the NTCIREVAL files (exports.qrels: a zip for downloads, a folder for the command);
- ``scores-csv``, ``scores-json``, ``nuggets-csv``, ``turns-csv``: the scores and the paper's
  Tables 1 and 2 (exports.scores);
- ``assignments``: who was given what, when it was done, the time on task (exports.assignments).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from annotator.interchange.exports import annotations, assignments, qrels, scores
from annotator.models import AttributeSet, Campaign, Conversation, Run, Topic
from annotator.rules.ids import ATTRIBUTE_SET, RUN, TOPIC, id_problem

__all__ = ["Export", "EXPORTS", "KINDS", "ExportRefused", "stream", "unwritable_ids", "write_chunks", "command_formats"]

Chunks = Iterator[str | bytes]
CSV, TEXT = "text/csv; charset=utf-8", "text/plain; charset=utf-8"


@dataclass(frozen=True)
class Export:
    kind: str
    label: str
    description: str
    suffix: str  # of the downloaded file: <campaign>-<kind>.<suffix>
    content_type: str
    write: Callable[[Campaign, object], Chunks]  # (campaign, annotator or None) -> chunks
    command: str | None  # the management command that writes it, with `--format option` (None: console and API only)
    option: str = ""
    linear_only: bool = False  # its format holds one line of turns: a campaign whose conversations branch is refused


def _campaign_wide(writer: Callable[[Campaign], Chunks]) -> Callable[[Campaign, object], Chunks]:
    """An export of the whole campaign: whose judgments is not a choice (each conversation's judge)."""
    return lambda campaign, _annotator: writer(campaign)


EXPORTS: dict[str, Export] = {e.kind: e for e in [
    Export("paper", "Annotations, paper format", "The annotated text format of the paper (Figure 5), one file for all "
           "conversations.", "txt", TEXT, annotations.iter_paper_export, "export_annotations", "paper", linear_only=True),
    Export("jsonl", "Annotations, JSONL", "One JSON object per conversation, with turns, nuggets, grades and memberships.",
           "jsonl", "application/x-ndjson", annotations.iter_jsonl_export, "export_annotations", "jsonl"),
    Export("nuggets-tsv", "Nuggets, TSV", "One row per nugget: topic, run, turn, WC, entity, grade, memberships.", "tsv",
           "text/tab-separated-values; charset=utf-8", annotations.iter_nuggets_tsv, "export_annotations", "nuggets-tsv"),
    Export("qrels", "Qrels and gold distributions (zip)", "NTCIREVAL-style qrels and golddistr files.", "zip",
           "application/zip", qrels.iter_qrels_zip, "export_annotations", "qrels"),
    Export("scores-csv", "Scores, CSV", "One row per conversation: R, GF per attribute set, GF, GFRC.", "csv", CSV,
           _campaign_wide(scores.iter_scores_csv), "export_scores", "csv"),
    Export("scores-json", "Scores, JSON", "The same scores as JSON, with the settings used.", "json", "application/json",
           _campaign_wide(scores.iter_scores_json), "export_scores", "json"),
    Export("paths-csv", "Scores per path, CSV", "One row per root-to-leaf path of each conversation (a linear one is one "
           "path): its turns, its probability, R, GF per attribute set, GF, GFRC.", "csv", CSV,
           _campaign_wide(scores.iter_paths_csv), "export_scores", "paths-csv"),
    Export("nuggets-csv", "Score detail per nugget, CSV (Table 1)", "How R was built: per nugget turn, WC, pw, g, pw x g, "
           "duplicate, attribute sets without a membership.", "csv", CSV, scores.iter_score_nuggets_csv, "export_scores",
           "nuggets-csv"),
    Export("turns-csv", "Score detail per turn, CSV (Table 2)", "How GF was built: per system turn and attribute set, "
           "achieved distribution, target, DistrSim, turn weight.", "csv", CSV, scores.iter_score_turns_csv,
           "export_scores", "turns-csv"),
    Export("assignments", "Assignments, CSV", "One row per assignment of a person: annotator, topic, run, when assigned and "
           "done, time on task (active_seconds), the guidelines version in force when done, and its counts (turns "
           "labelled, nuggets graded, entities complete).", "csv", CSV, _campaign_wide(assignments.iter_assignments_csv),
           None),
]}
KINDS = tuple(EXPORTS)


def command_formats(command: str) -> dict[str, str]:
    """A command's ``--format`` values and the kinds they write, in the catalogue's order."""
    return {e.option: e.kind for e in EXPORTS.values() if e.command == command}


class ExportRefused(ValueError):
    """The campaign holds ids no export can write whole (stored before the ids rule): nothing is
    written, and the message names them."""


def unwritable_ids(campaign: Campaign) -> list[str]:
    """The campaign's topic, run and attribute-set ids that break annotator.rules.ids (each would
    forge a field or a line of a file, or stop the paper writer mid-stream)."""
    stored = [
        *((TOPIC, code) for code in Topic.objects.filter(campaign=campaign).values_list("code", flat=True)),
        *((RUN, name) for name in Run.objects.filter(campaign=campaign).values_list("name", flat=True)),
        *((ATTRIBUTE_SET, name) for name in AttributeSet.objects.filter(topic_type__campaign=campaign)
          .values_list("name", flat=True)),
    ]
    return [problem for kind, value in stored if (problem := id_problem(kind, value)) is not None]


def refusal(campaign: Campaign) -> str | None:
    """Why no export of the campaign can be written (its unwritable ids, named), or None."""
    problems = unwritable_ids(campaign)
    if not problems:
        return None
    return (f"campaign {campaign.slug} cannot be exported: " + "; ".join(problems[:10])
            + (f" and {len(problems) - 10} more" if len(problems) > 10 else "") + ". Rename them (admin) and export again.")


def stream(campaign: Campaign, kind: str, annotator=None) -> Chunks:
    """The chunks of one export (str, or bytes for the qrels zip). Raises ExportRefused, before
    anything is written, when the campaign holds ids an export cannot write whole."""
    export = EXPORTS.get(kind)
    if export is None:
        raise ValueError(f"unknown export {kind!r} (one of {', '.join(KINDS)})")
    if (refused := refusal(campaign)) is not None:
        raise ExportRefused(refused)
    if export.linear_only and (branching := _branching(campaign)):
        raise ExportRefused(f"the {export.label.lower()} holds one line of turns, and {len(branching)} conversation(s) "
                            f"of campaign {campaign.slug} branch ({', '.join(branching[:5])}"
                            f"{' ...' if len(branching) > 5 else ''}): export them as JSONL, which keeps every branch.")
    return export.write(campaign, annotator)


def _branching(campaign: Campaign) -> list[str]:
    return [f"{topic} / {run}" for topic, run in Conversation.objects.filter(topic__campaign=campaign, is_tree=True)
            .order_by("topic__code", "run__name").values_list("topic__code", "run__name")]


def write_chunks(chunks: Iterable[str | bytes], handle) -> None:
    """Write an export's chunks to a binary file handle."""
    for chunk in chunks:
        handle.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
