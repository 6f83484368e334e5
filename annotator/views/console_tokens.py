"""API tokens of a campaign's annotators: who holds one, and revoking it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST
from rest_framework.authtoken.models import Token

from annotator import tokens
from annotator.access import annotator_for_organiser, campaign_for_organiser


@login_required
def token_list(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    annotators = (
        get_user_model()
        .objects.filter(assignments__conversation__topic__campaign=campaign)
        .distinct()
        .annotate(has_token=Exists(Token.objects.filter(user=OuterRef("pk"))))
        .order_by("username")
    )
    return render(request, "console/tokens.html", {"campaign": campaign, "annotators": annotators, "tab": "tokens"})


@login_required
@require_POST
def token_revoke(request: HttpRequest, slug: str, annotator: int) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    user = annotator_for_organiser(request.user, campaign, annotator)
    if tokens.revoke(user):
        messages.success(request, f"{user.get_username()}'s API token is revoked: scripts using it now get 401.")
    else:
        messages.info(request, f"{user.get_username()} has no API token.")
    return redirect("console:tokens", campaign.slug)
