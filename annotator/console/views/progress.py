"""Progress per annotator and per topic, and the paper's topic x run usefulness grid."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.console import progress_report, reports
from annotator.access import campaign_for_organiser


@login_required
def progress(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    return render(
        request, "console/progress.html", {"campaign": campaign, "progress": progress_report.progress(campaign), "tab": "progress"}
    )


@login_required
def grid(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    return render(
        request, "console/grid.html", {"campaign": campaign, "grid": reports.usefulness_grid(campaign), "tab": "grid"}
    )
