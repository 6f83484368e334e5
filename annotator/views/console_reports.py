"""Score reports: per run means with 95% confidence intervals, per topic, CSV and the R-vs-GF plot."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotator import reports
from annotator.access import campaign_for_organiser


@login_required
@require_GET
def report(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    return render(
        request,
        "console/report.html",
        {"campaign": campaign, "report": reports.score_report(campaign), "tab": "report", "version": campaign.version},
    )


@login_required
@require_GET
def report_csv(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    response = StreamingHttpResponse(reports.report_csv_rows(campaign), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-scores-report.csv"'
    return response


@login_required
@require_GET
def plot(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    content_type = {"svg": "image/svg+xml", "png": "image/png"}[fmt]
    response = HttpResponse(reports.scatter_bytes(campaign, fmt), content_type=content_type)
    if request.GET.get("download"):
        response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-R-vs-GF.{fmt}"'
    response["Cache-Control"] = "no-store"
    return response
