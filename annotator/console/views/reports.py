"""Score reports: per run means with 95% confidence intervals, per topic, CSV and the R-vs-GF plot."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods

from annotator.console import reports
from annotator.access import campaign_for_organiser
from annotator.console.forms import CampaignSettingsForm, StaleForm


@login_required
@require_http_methods(["GET", "POST"])
def report(request: HttpRequest, slug: str) -> HttpResponse:
    """The report; a POST of L and alpha (the quick form above it) changes the settings through
    the console's settings form (version-checked) and, with htmx, answers the report body only."""
    campaign = campaign_for_organiser(request.user, slug)
    errors: list[str] = []
    if request.method == "POST":
        errors = _quick_settings(request, campaign)
        if not request.htmx:
            for error in errors:
                messages.error(request, error)
            return redirect("console:report", slug=campaign.slug)
        campaign.refresh_from_db()
    page = request.GET.get("page", "1")
    report_ = reports.score_report(campaign, page=int(page) if page.isdigit() else 1,
                                   sort=request.GET.get("sort", "topic"), descending=request.GET.get("order") == "desc",
                                   as_ntcireval=_as_ntcireval(request))
    context = {"campaign": campaign, "report": report_, "tab": "report",
               "version": campaign.version, "quick_errors": errors}
    template = "console/report.html#report-body" if request.htmx else "console/report.html"
    return render(request, template, context, status=400 if errors else 200)


def _as_ntcireval(request: HttpRequest) -> bool:
    """The ranked lists' choice: uniform vectors as NTCIREVAL writes them (``?as_ntcireval=1``)."""
    return request.GET.get("as_ntcireval") == "1"


def _quick_settings(request: HttpRequest, campaign) -> list[str]:
    data = {f: getattr(campaign, f) for f in CampaignSettingsForm.Meta.fields}
    if not campaign.duplicates_count_once:
        data.pop("duplicates_count_once")
    data.update({k: request.POST.get(k, "") for k in ("patience", "alpha", "version")})
    form = CampaignSettingsForm(data=data, instance=campaign)
    if not form.is_valid():
        return [f"{form.fields[name].label if name in form.fields else name}: {' '.join(msgs)}" for name, msgs in form.errors.items()]
    try:
        form.save_checked()
    except StaleForm as stale:
        return [str(stale)]
    return []


@login_required
@require_GET
def report_csv(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """The per-run summary, one table."""
    campaign = campaign_for_organiser(request.user, slug)
    return _csv(reports.report_csv_rows(campaign), f"{campaign.slug}-scores-report.csv")


@login_required
@require_GET
def report_conversations_csv(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """Every conversation's scores, one table, judges by username."""
    campaign = campaign_for_organiser(request.user, slug)
    return _csv(reports.conversations_csv_rows(campaign), f"{campaign.slug}-scores-conversations.csv")


@login_required
@require_GET
def report_ranked_csv(request: HttpRequest, slug: str, per_topic: str | None = None) -> StreamingHttpResponse:
    """The ranked-list runs' GFR figures, one table: per run, or (report-ranked-topics.csv) per run and topic."""
    campaign = campaign_for_organiser(request.user, slug)
    suffix = "-topics" if per_topic else ""
    return _csv(reports.ranked_csv_rows(campaign, per_topic=bool(per_topic), as_ntcireval=_as_ntcireval(request)),
                f"{campaign.slug}-ranked-lists{suffix}.csv")


def _csv(lines, filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


@login_required
@require_GET
def plot(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    content_type = {"svg": "image/svg+xml", "png": "image/png"}[fmt]
    response = HttpResponse(reports.scatter_bytes(campaign, fmt), content_type=content_type)
    if request.GET.get("download"):
        response["Content-Disposition"] = content_disposition_header(True, f"{campaign.slug}-R-vs-GF.{fmt}")
    response["Cache-Control"] = "no-store"
    return response
