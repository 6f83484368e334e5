"""Every export of the catalogue (annotator.interchange.exports.catalogue), downloadable from the console.

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
from annotator.interchange.exports.catalogue import EXPORTS, ExportRefused, stream


def export_response(campaign, kind: str) -> HttpResponse:
    """The streamed download of one export (kind must be in EXPORTS): console and API alike; a
    campaign whose ids no export can write whole is a 409 naming them, before any byte."""
    export = EXPORTS[kind]
    try:
        chunks = stream(campaign, kind)
    except ExportRefused as refused:
        return HttpResponse(str(refused), status=409, content_type="text/plain; charset=utf-8")
    response = StreamingHttpResponse(chunks, content_type=export.content_type)
    response["Content-Disposition"] = content_disposition_header(True, f"{campaign.slug}-{kind}.{export.suffix}")
    return response


@login_required
@require_GET
def exports(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    return render(request, "console/exports.html", {"campaign": campaign, "exports": EXPORTS.values(), "tab": "exports"})


@login_required
@require_GET
def download(request: HttpRequest, slug: str, kind: str) -> StreamingHttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    if kind not in EXPORTS:
        raise Http404("No such export.")
    return export_response(campaign, kind)
