"""Agreement between annotators of the same conversation, and adjudication of the gold."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from annotator.console import reports
from annotator.access import campaign_for_organiser, conversation_for_organiser
from annotator.console.forms import GoldForm
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
    """Compare the annotators' judgments of one conversation and pick the gold the scores use."""
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
    pairs = [reports.conversation_agreement(conv, first, second)[0] for first, second in reports.annotator_pairs(conv)]
    return render(
        request,
        "console/adjudicate.html",
        {"campaign": campaign, "conversation": conv, "form": form, "scores": scores, "pairs": pairs,
         "judge": judge, "tab": "agreement"},
    )
