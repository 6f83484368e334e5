"""The campaign's people and their accounts, without a shell on the server.

- People: add them by name (an account that exists) or make their account (a new person gets a
  one-time link to set a password, shown once, downloadable as CSV, e-mailed where a mail server
  is configured), a new link for someone who lost theirs, take someone out of the campaign
  (annotator.people).
- Accounts: revoke an API token, lift a login lockout (django-axes), for the accounts the
  organiser manages (annotator.access.managed_accounts: every campaign of the account is
  theirs). Lifting a lockout clears the account's failures only, never what its guessing
  addresses have counted (annotator.throttling).
"""

from __future__ import annotations

from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.tokens import default_token_generator
from django.db.models import Exists, OuterRef, Subquery, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import content_disposition_header, urlsafe_base64_encode
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.authtoken.models import Token

from annotator import people, throttling, tokens
from annotator.access import (
    annotator_for_organiser,
    campaign_for_organiser,
    campaign_people,
    managed_accounts,
    person_for_organiser,
)
from annotator.console.setup_forms import PeopleForm
from annotator.interchange.csvsafe import csv_text
from annotator.models import Campaign, CampaignMember


def _link_for(request: HttpRequest):
    def link(user) -> str:
        path = reverse("password_reset_confirm", kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)), "token": default_token_generator.make_token(user)})
        return request.build_absolute_uri(path)
    return link


def _page(request: HttpRequest, campaign: Campaign, *, form: PeopleForm | None = None, invitations=(), added=None,
          problems=(), status: int = 200) -> HttpResponse:
    failures = (AccessAttempt.objects.filter(username=OuterRef("username")).values("username")
                .annotate(total=Sum("failures_since_start")).values("total"))
    everyone = (
        campaign_people(campaign)
        .annotate(has_token=Exists(Token.objects.filter(user=OuterRef("pk"))), failed_logins=Subquery(failures),
                  managed=Exists(managed_accounts(request.user, campaign).filter(pk=OuterRef("pk"))),
                  member=Exists(CampaignMember.objects.filter(campaign=campaign, user=OuterRef("pk"))),
                  organiser=Exists(Campaign.organisers.through.objects.filter(campaign=campaign, user=OuterRef("pk"))),
                  pending=Exists(people.pending(campaign).filter(pk=OuterRef("pk"))))
        .select_related("annotator_profile").order_by("username")
    )
    lockout = {"failures": settings.AXES_FAILURE_LIMIT, "minutes": round(get_cool_off().total_seconds() / 60)}
    return render(request, "console/accounts.html", {
        "campaign": campaign, "annotators": everyone, "lockout": lockout, "tab": "accounts",
        "form": form or PeopleForm(), "invitations": list(invitations), "added": added, "problems": list(problems),
        "emails": getattr(settings, "GFRC_EMAIL_LINKS", False),
    }, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def accounts(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the campaign's people and accounts. POST: add people (the links of new accounts are
    in this answer, once)."""
    campaign = campaign_for_organiser(request.user, slug)
    if request.method == "GET":
        return _page(request, campaign)
    form = PeopleForm(request.POST)
    if not form.is_valid():
        return _page(request, campaign, form=form, status=400)
    try:
        added = people.add_people(campaign, form.cleaned_data["usernames"], form.cleaned_data["role"], by=request.user,
                                  link_for=_link_for(request))
    except people.PeopleRefused as refused:
        return _page(request, campaign, form=form, problems=refused.problems, status=400)
    messages.success(request, added.summary())
    return _page(request, campaign, invitations=added.invited, added=added)


@login_required
@require_POST
def person_link(request: HttpRequest, slug: str, annotator: int) -> HttpResponse:
    """A new link for someone invited here who has not set a password yet (shown once)."""
    campaign = campaign_for_organiser(request.user, slug)
    user = person_for_organiser(request.user, campaign, annotator)
    try:
        invitation = people.new_link(campaign, user, _link_for(request))
    except people.PeopleRefused as refused:
        messages.error(request, str(refused))
        return redirect("console:accounts", campaign.slug)
    return _page(request, campaign, invitations=[invitation])


@login_required
@require_POST
def links_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """The links of the people named (`user` ids) who were invited here and have not set a
    password yet, as CSV: new links (the ones shown stay valid too)."""
    campaign = campaign_for_organiser(request.user, slug)
    wanted = [int(pk) for pk in request.POST.getlist("user") if pk.isdigit() and len(pk) < 19]
    links = [people.new_link(campaign, user, _link_for(request)) for user in people.pending(campaign).filter(pk__in=wanted)]
    body = csv_text([["username", "email", "link"], *([i.username, i.email, i.link] for i in links)])
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"{campaign.slug}-password-links.csv")
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def person_remove(request: HttpRequest, slug: str, annotator: int) -> HttpResponse:
    """GET: what taking the person out of the campaign does. POST: do it."""
    campaign = campaign_for_organiser(request.user, slug)
    user = person_for_organiser(request.user, campaign, annotator)
    if request.method == "POST":
        try:
            removal = people.remove_person(campaign, user)
        except people.PeopleRefused as refused:
            messages.error(request, str(refused))
        else:
            kept = f"; the {removal.judged_assignments} conversation(s) they judged keep their judgments" if removal.judged_assignments else ""
            messages.success(request, f"{user.get_username()} is out of {campaign.name}: {removal.open_assignments} "
                                      f"unstarted assignment(s) dropped{kept}.")
        return redirect("console:accounts", campaign.slug)
    return render(request, "console/person_remove.html", {
        "campaign": campaign, "tab": "accounts", "person": user, "removal": people.removal_of(campaign, user)})


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
