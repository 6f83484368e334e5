"""Harvesting from the console: what a harvest asks (the campaign's harvest settings, saved from
the settings page), a harvest started on one of the deployment's listed servers (a background
job), its progress, tokens, time and failures, cancel, and a harvested turn's raw answer."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotator.access import campaign_for_organiser, harvest_for_organiser, harvested_answer_for_organiser
from annotator.console.harvest_forms import HarvestForm, HarvestSettingsForm
from annotator.harvesting import jobs
from annotator.models import HarvestRun


@login_required
@require_http_methods(["GET", "POST"])
def harvest(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the form, what a harvest asks, the recent harvests. POST: queue one, then show its page."""
    campaign = campaign_for_organiser(request.user, slug)
    form = HarvestForm(request.POST or None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        try:
            started = form.start(created_by=request.user)
        except jobs.HarvestRefused as refused:
            form.add_error(None, str(refused))
        else:
            return redirect("console:harvest_run", slug=campaign.slug, harvest=started.pk)
    return render(request, "console/harvest.html", {
        "campaign": campaign, "form": form, "tab": "harvest", "harvests": jobs.recent_harvests(campaign),
        "asked": HarvestSettingsForm(campaign=campaign),
    }, status=400 if form.errors else 200)


@login_required
@require_POST
def harvest_settings(request: HttpRequest, slug: str) -> HttpResponse:
    """Save what a harvest asks (from the settings page)."""
    campaign = campaign_for_organiser(request.user, slug)
    form = HarvestSettingsForm(request.POST, campaign=campaign)
    if form.is_valid():
        form.save()
        messages.success(request, "Harvest settings saved: the next harvest asks these.")
        return redirect("console:settings", slug=campaign.slug)
    return render(request, "console/harvest_settings.html", {"campaign": campaign, "asked": form, "tab": "settings"},
                  status=400)


@login_required
def harvest_run(request: HttpRequest, slug: str, harvest: int) -> HttpResponse:
    """A harvest's progress; htmx polls the progress fragment until it ends."""
    harvest = harvest_for_organiser(request.user, slug, harvest)
    if jobs.reap_abandoned(HarvestRun.objects.filter(pk=harvest.pk)):
        harvest.refresh_from_db()
    template = "console/harvest_run.html#harvest-progress" if request.htmx else "console/harvest_run.html"
    return render(request, template, {"campaign": harvest.campaign, "harvest": harvest, "tab": "harvest"})


@login_required
@require_POST
def harvest_cancel(request: HttpRequest, slug: str, harvest: int) -> HttpResponse:
    """Stop a queued or running harvest: no new conversation is begun; what was stored stays."""
    harvest = harvest_for_organiser(request.user, slug, harvest)
    said = jobs.cancel(harvest, request.user)
    if request.htmx:
        harvest.refresh_from_db()
        return render(request, "console/harvest_run.html#harvest-progress", {"campaign": harvest.campaign, "harvest": harvest})
    messages.info(request, said)
    return redirect("console:harvest_run", slug=harvest.campaign.slug, harvest=harvest.pk)


@login_required
@require_POST
def harvest_again(request: HttpRequest, slug: str, harvest: int) -> HttpResponse:
    """The same harvest anew: what was stored is kept, the rest asked."""
    harvest = harvest_for_organiser(request.user, slug, harvest)
    new = jobs.again(harvest, request.user)
    return redirect("console:harvest_run", slug=harvest.campaign.slug, harvest=new.pk)


@login_required
@require_GET
def harvested_answer_raw(request: HttpRequest, slug: str, answer: int) -> HttpResponse:
    """A harvested turn's answer as the server sent it: a JSON file to download, never a page."""
    answer = harvested_answer_for_organiser(request.user, slug, answer)
    response = HttpResponse(answer.raw, content_type="application/json; charset=utf-8")
    name = f"{answer.topic}-{answer.run}-{answer.turn}.json".replace('"', "")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response
