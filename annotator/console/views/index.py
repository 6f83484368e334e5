"""The organiser's console: the list of campaigns and each campaign's overview.

Every console view starts with an access helper: organisers see their own campaigns only;
anyone else gets a 404 (or a 403 on the index, which names no campaign).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.access import campaign_for_organiser, may_create_campaigns, organised_campaigns
from annotator.judgments.run_totals import campaign_counts
from annotator.models import Run


@login_required
def index(request: HttpRequest) -> HttpResponse:
    campaigns = organised_campaigns(request.user).prefetch_related("topics", "runs")
    may_create = may_create_campaigns(request.user)
    if not campaigns.exists() and not may_create:
        raise PermissionDenied("The console is for campaign organisers.")
    return render(request, "console/index.html", {"campaigns": campaigns, "may_create": may_create})


@login_required
def overview(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    # kept per run with every write (annotator.judgments.run_totals); "done" is the one of
    # annotator.judgments.completion
    counts = {
        "topics": campaign.topics.count(),
        "runs": campaign.runs.filter(kind=Run.Kind.CONVERSATIONS).count(),
        "ranked_list_runs": campaign.runs.filter(kind=Run.Kind.RANKED_LISTS).count(),
        **vars(campaign_counts(campaign)),
    }
    return render(
        request,
        "console/overview.html",
        {"campaign": campaign, "counts": counts, "tab": "overview", "grades": campaign.grades.all(),
         "topic_types": campaign.topic_types.prefetch_related("attribute_sets")},
    )
