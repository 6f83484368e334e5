"""The campaign's annotators' accounts: their API tokens and failed logins; an organiser
revokes a token or lifts a login lockout (django-axes) without a shell on the server, for the
accounts they manage (annotator.access.managed_accounts: every campaign of the account is
theirs). Lifting a lockout clears the account's failures only, never what its guessing
addresses have counted (annotator.throttling)."""

from __future__ import annotations

from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef, Subquery, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST
from rest_framework.authtoken.models import Token

from annotator import throttling, tokens
from annotator.access import annotator_for_organiser, campaign_annotators, campaign_for_organiser, managed_accounts


@login_required
def accounts(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    failures = (
        AccessAttempt.objects.filter(username=OuterRef("username"))
        .values("username")
        .annotate(total=Sum("failures_since_start"))
        .values("total")
    )
    annotators = (
        campaign_annotators(campaign)
        .annotate(has_token=Exists(Token.objects.filter(user=OuterRef("pk"))), failed_logins=Subquery(failures),
                  managed=Exists(managed_accounts(request.user, campaign).filter(pk=OuterRef("pk"))))
        .select_related("annotator_profile")
        .order_by("username")
    )
    lockout = {"failures": settings.AXES_FAILURE_LIMIT, "minutes": round(get_cool_off().total_seconds() / 60)}
    return render(
        request, "console/accounts.html",
        {"campaign": campaign, "annotators": annotators, "lockout": lockout, "tab": "accounts"},
    )


@login_required
@require_POST
def token_revoke(request: HttpRequest, slug: str, annotator: int) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    user = annotator_for_organiser(request.user, campaign, annotator)
    if tokens.revoke(user):
        messages.success(request, f"{user.get_username()}'s API token is revoked: scripts using it now get 401.")
    else:
        messages.info(request, f"{user.get_username()} has no API token.")
    return redirect("console:accounts", campaign.slug)


@login_required
@require_POST
def unlock(request: HttpRequest, slug: str, annotator: int) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    user = annotator_for_organiser(request.user, campaign, annotator)
    throttling.clear_account_failures(user.get_username())
    messages.success(
        request,
        f"{user.get_username()} can log in again. (The addresses the failures came from still count them: an "
        "address locked by failures stays locked until its cool-off, or an administrator runs manage.py axes_reset_ip.)",
    )
    return redirect("console:accounts", campaign.slug)
