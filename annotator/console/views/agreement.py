"""Agreement between annotators of the same conversation, and adjudication of the gold."""

from __future__ import annotations

from urllib.parse import quote

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotator.console import reports
from annotator.access import campaign_for_organiser, conversation_for_organiser
from annotator.console.forms import DecisionForm, GoldForm
from annotator.evaluation import adjudication_effect
from annotator.judgments import adjudication
from annotator.judgments.edits import AnnotationRefused, StaleEdit
from annotator.models import Conversation
from annotator.scores.per_conversation import gold_annotators, score_conversation


@login_required
def agreement(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    return render(
        request,
        "console/agreement.html",
        {"campaign": campaign, "agreement": reports.campaign_agreement(campaign), "tab": "agreement"},
    )


@login_required
def adjudicate(request: HttpRequest, slug: str, conversation: int) -> HttpResponse:
    """The conversation's disagreements, one by one, each with what taking either side does to
    the scores; and the shortcut: one annotator's judgments as the gold for the whole conversation."""
    campaign = campaign_for_organiser(request.user, slug)
    conv: Conversation = conversation_for_organiser(request.user, conversation)
    if conv.topic.campaign_id != campaign.pk:
        return redirect("console:adjudicate", slug=conv.topic.campaign.slug, conversation=conv.pk)
    form = GoldForm(request.POST or None, conversation=conv)
    if request.method == "POST" and form.is_valid():
        conv.gold_annotator = form.cleaned_data["gold_annotator"]
        conv.save(update_fields=["gold_annotator"])
        messages.success(request, f"{conv}: the scores now use {conv.gold_annotator.get_username()}'s judgments.")
        return redirect("console:adjudicate", slug=campaign.slug, conversation=conv.pk)
    annotators = list(form.fields["gold_annotator"].queryset)
    judge = gold_annotators([conv])[conv.pk]
    if not form.is_bound and judge is not None:
        form.initial["gold_annotator"] = judge
    scores = [{"annotator": a, "score": score_conversation(conv, a)} for a in annotators]
    pairs = reports.pair_reports(conv)
    adjudicated = _adjudicated(conv, judge)
    rows = []
    if adjudicated is not None:
        gold_score = score_conversation(conv, adjudicated.gold_account) if adjudicated.gold_in_use else None
        if gold_score is not None:
            scores.append({"annotator": adjudicated.gold_account, "score": gold_score, "adjudicated": True})
        found = adjudication_effect.effects(adjudicated, adjudication_effect.RunMeans.of_topic(conv), judge=judge)
        rows = [{"d": d, "choices": found.get(d.unit, [])} for d in adjudicated.disagreements]
    return render(
        request,
        "console/adjudicate.html",
        {"campaign": campaign, "conversation": conv, "form": form, "scores": scores, "pairs": pairs,
         "judge": judge, "tab": "agreement", "adjudicated": adjudicated, "rows": rows,
         "selected": request.GET.get("unit") or _first_open(adjudicated),
         "decisions": list(conv.decisions.select_related("taken_from", "decided_by")[:20])},
    )


def _first_open(adjudicated: adjudication.Adjudication | None) -> str:
    """The disagreement a fresh page selects, so that its keys work at once: the first open one."""
    if adjudicated is None:
        return ""
    return next((d.unit for d in adjudicated.disagreements if not d.settled), "")


def _adjudicated(conv: Conversation, judge: int | None) -> adjudication.Adjudication | None:
    """Every human annotator of the conversation, side by side (None: fewer than two), with the
    values the scores use now as the gold's."""
    annotators = reports.human_annotators(conv)
    if len(annotators) < 2:
        return None
    return adjudication.adjudication(conv, annotators, judge=judge)


@login_required
@require_POST
def adjudicate_decide(request: HttpRequest, slug: str, conversation: int) -> HttpResponse:
    """Settle one disagreement (take one annotator's value, or write the gold value), then go on
    to the next open one."""
    campaign = campaign_for_organiser(request.user, slug)
    conv: Conversation = conversation_for_organiser(request.user, conversation)
    if conv.topic.campaign_id != campaign.pk:
        raise Http404
    judge = gold_annotators([conv])[conv.pk]
    adjudicated = _adjudicated(conv, judge)
    form = DecisionForm(request.POST, adjudicated=adjudicated)
    here = reverse("console:adjudicate", kwargs={"slug": campaign.slug, "conversation": conv.pk})
    if not form.is_valid():
        for field, errors in form.errors.items():
            for error in errors:
                messages.error(request, error if field in ("__all__", "value") else f"{field}: {error}")
        return redirect(f"{here}?unit={quote(request.POST.get('unit', ''))}")
    data = form.cleaned_data
    try:
        decision = adjudication.decide(conv, data["unit"], actor=request.user, judge=judge,
                                       take=data["taker"], written=data["written"], expected_version=data["version"])
    except (AnnotationRefused, StaleEdit) as refused:
        messages.error(request, f"Nothing was decided: {refused}")
        return redirect(f"{here}?unit={quote(data['unit'])}")
    who = data["taker"].get_username() if data["taker"] else "your value"
    messages.success(request, f"Gold: {decision.description} (from {who}).")
    units = [d.unit for d in adjudicated.disagreements]
    position = units.index(data["unit"])
    settled = {d.unit for d in adjudicated.disagreements if d.settled} | {data["unit"]}
    following = [u for u in units[position + 1:] + units[:position] if u not in settled]
    return redirect(f"{here}?unit={quote(following[0] if following else data['unit'])}")


@login_required
@require_POST
def adjudicate_undo(request: HttpRequest, slug: str, conversation: int) -> HttpResponse:
    """Take back the conversation's latest decision and show the disagreement it reopened."""
    campaign = campaign_for_organiser(request.user, slug)
    conv: Conversation = conversation_for_organiser(request.user, conversation)
    if conv.topic.campaign_id != campaign.pk:
        raise Http404
    here = reverse("console:adjudicate", kwargs={"slug": campaign.slug, "conversation": conv.pk})
    try:
        undone = adjudication.undo_last_decision(conv, actor=request.user)
    except StaleEdit as stale:
        messages.error(request, f"Nothing was undone: {stale}")
        return redirect(here)
    if undone is None:
        messages.info(request, "No decision to undo.")
        return redirect(here)
    messages.success(request, undone.description)
    return redirect(f"{here}?unit={quote(undone.unit)}")
