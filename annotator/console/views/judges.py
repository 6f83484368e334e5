"""Automatic judges beside the gold: how far a machine's annotation is from the human one,
down to the system ranking (annotator.evaluation.judge_comparison), and the marking of judge accounts."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods

from annotator.evaluation import judge_comparison
from annotator.access import campaign_for_organiser
from annotator.console.judge_forms import AutomaticJudgeForm, JudgeComparisonForm

SCATTER_SIZE = 240  # px: the gold-vs-judge GFRC scatter, drawn as inline SVG


@login_required
@require_http_methods(["GET", "POST"])
def judges(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the comparison of the chosen judge with the chosen gold. POST: mark an account."""
    campaign = campaign_for_organiser(request.user, slug)
    mark_form = AutomaticJudgeForm(request.POST or None, campaign=campaign, user=request.user)
    if request.method == "POST":
        if mark_form.is_valid():
            profile = mark_form.save()
            state = "an automatic judge" if profile.is_automatic else "a human annotator"
            messages.success(request, f"{profile.user.get_username()} is now {state}.")
            return redirect("console:judges", slug=campaign.slug)
        return render(request, "console/judges.html", {"campaign": campaign, "tab": "agreement", "mark_form": mark_form,
                                                       "form": JudgeComparisonForm(campaign=campaign)}, status=400)
    form = JudgeComparisonForm(request.GET or _first_choice(campaign), campaign=campaign)
    comparison = judge_comparison.compare_judge(campaign, form.cleaned_data["judge"], form.gold_user()) if form.is_valid() else None
    return render(
        request,
        "console/judges.html",
        {"campaign": campaign, "tab": "agreement", "form": form, "mark_form": mark_form, "comparison": comparison,
         "scatter": _scatter(comparison) if comparison is not None else None, "scatter_size": SCATTER_SIZE,
         "query": urlencode({"judge": form.cleaned_data["judge"].pk, "gold": form.cleaned_data["gold"]}) if comparison else ""},
        status=400 if request.GET and not form.is_valid() else 200,
    )


@login_required
@require_GET
def judges_csv(request: HttpRequest, slug: str, level: str) -> HttpResponse:
    """The campaign-level figures (one row per measure) or every conversation's, as CSV."""
    campaign = campaign_for_organiser(request.user, slug)
    form = JudgeComparisonForm(request.GET, campaign=campaign)
    if not form.is_valid():
        raise Http404("No such judge or gold in this campaign.")
    comparison = judge_comparison.compare_judge(campaign, form.cleaned_data["judge"], form.gold_user())
    body = comparison.campaign_csv() if level == "campaign" else comparison.conversations_csv()
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    name = f"{campaign.slug}-{comparison.judge.get_username()}-vs-{comparison.gold}-{level}.csv"
    response["Content-Disposition"] = content_disposition_header(True, name)
    return response


def _first_choice(campaign) -> dict | None:
    """With no choice made yet, the first automatic judge against the adjudicated gold."""
    first = next(iter(judge_comparison.automatic_judges(campaign)), None)
    return {"judge": first.pk, "gold": judge_comparison.ADJUDICATED} if first is not None else None


def _scatter(comparison: judge_comparison.JudgeComparison) -> list[dict]:
    """Gold (x) against judge (y) GFRC per conversation, as SVG coordinates (0..1 on both axes)."""
    frame = comparison.conversations
    if frame.empty or "gold_GFRC" not in frame:
        return []
    return [
        {"x": round(g * SCATTER_SIZE, 1), "y": round((1 - j) * SCATTER_SIZE, 1), "label": f"{t} / {r}: gold {g:.4f}, judge {j:.4f}"}
        for t, r, g, j in zip(frame["topic"], frame["run"], frame["gold_GFRC"], frame["judge_GFRC"])
    ]
