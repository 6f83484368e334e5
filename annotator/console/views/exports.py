"""Every export of the backbone's commands, downloadable from the console.

Large exports stream: a StreamingHttpResponse over the exporter's generator functions, so a
campaign of any size is never built in memory.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from annotator.access import campaign_for_organiser

# kind -> (label, description, file suffix, content type)
EXPORTS = {
    "paper": ("Annotations, paper format", "The annotated text format of the paper (Figure 5), one file for all conversations.", "txt", "text/plain; charset=utf-8"),
    "jsonl": ("Annotations, JSONL", "One JSON object per conversation, with turns, nuggets, grades and memberships.", "jsonl", "application/x-ndjson"),
    "nuggets-tsv": ("Nuggets, TSV", "One row per nugget: topic, run, turn, WC, entity, grade, memberships.", "tsv", "text/tab-separated-values; charset=utf-8"),
    "qrels": ("Qrels and gold distributions (zip)", "NTCIREVAL-style qrels and golddistr files.", "zip", "application/zip"),
    "scores-csv": ("Scores, CSV", "One row per conversation: R, GF per attribute set, GF, GFRC.", "csv", "text/csv; charset=utf-8"),
    "scores-json": ("Scores, JSON", "The same scores as JSON, with the settings used.", "json", "application/json"),
    "nuggets-csv": ("Score detail per nugget, CSV (Table 1)", "How R was built: per nugget turn, WC, pw, g, pw x g, duplicate, attribute sets without a membership.", "csv", "text/csv; charset=utf-8"),
    "turns-csv": ("Score detail per turn, CSV (Table 2)", "How GF was built: per system turn and attribute set, achieved distribution, target, DistrSim, turn weight.", "csv", "text/csv; charset=utf-8"),
    "assignments": ("Assignments, CSV", "One row per assignment of a person: annotator, topic, run, when assigned and done, time on task (active_seconds), the guidelines version in force when done, and its counts (turns labelled, nuggets graded, entities complete).", "csv", "text/csv; charset=utf-8"),
}


def export_stream(campaign, kind: str):
    """The exporter's generator for `kind` (chunks of str or bytes)."""
    from annotator.interchange.exports import catalogue as exporting

    return exporting.stream(campaign, kind)


def export_response(campaign, kind: str) -> HttpResponse:
    """The streamed download of one export (kind must be in EXPORTS): console and API alike; a
    campaign whose ids no export can write whole is a 409 naming them, before any byte."""
    from annotator.interchange.exports.catalogue import ExportRefused

    _, _, suffix, content_type = EXPORTS[kind]
    try:
        chunks = export_stream(campaign, kind)
    except ExportRefused as refused:
        return HttpResponse(str(refused), status=409, content_type="text/plain; charset=utf-8")
    response = StreamingHttpResponse(chunks, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, f"{campaign.slug}-{kind}.{suffix}")
    return response


@login_required
@require_GET
def exports(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    items = [{"kind": k, "label": v[0], "description": v[1], "suffix": v[2]} for k, v in EXPORTS.items()]
    return render(request, "console/exports.html", {"campaign": campaign, "exports": items, "tab": "exports"})


@login_required
@require_GET
def download(request: HttpRequest, slug: str, kind: str) -> StreamingHttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    if kind not in EXPORTS:
        raise Http404("No such export.")
    return export_response(campaign, kind)
