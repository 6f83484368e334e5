"""An LLM as an automatic judge from the console: start a run on one of the deployment's
listed servers (a background job), follow its progress, time, tokens and failures, cancel it,
and choose whose proposals annotators see."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotator.access import campaign_for_organiser, llm_run_for_organiser
from annotator.console.judge_forms import LlmJudgeForm, ProposalsForm
from annotator.llm_judge import jobs
from annotator.llm_judge.runner import JudgeRefused
from annotator.models import Campaign, LlmJudgeRun


def _page(request: HttpRequest, campaign: Campaign, form: LlmJudgeForm, proposals_form: ProposalsForm,
          status: int = 200) -> HttpResponse:
    return render(request, "console/llm_judge.html", {
        "campaign": campaign, "form": form, "tab": "agreement", "runs": jobs.recent_runs(campaign),
        "proposals_form": proposals_form,
    }, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def llm_judge(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the form and the recent runs (?server=NAME: the form for that server's models).
    POST: queue a run, then show its page."""
    campaign = campaign_for_organiser(request.user, slug)
    initial = {"server": request.GET["server"]} if request.GET.get("server") else None
    form = LlmJudgeForm(request.POST or None, campaign=campaign, initial=initial, page_url=request.path)
    if request.method == "POST" and form.is_valid():
        try:
            run = form.start(created_by=request.user)
        except JudgeRefused as refused:
            form.add_error(None, str(refused))
        else:
            return redirect("console:llm_run", slug=campaign.slug, run=run.pk)
    return _page(request, campaign, form, ProposalsForm(campaign=campaign), status=400 if form.errors else 200)


@login_required
def llm_run(request: HttpRequest, slug: str, run: int) -> HttpResponse:
    """A run's progress; htmx polls the progress fragment until it ends."""
    run = llm_run_for_organiser(request.user, slug, run)
    if jobs.reap_abandoned(LlmJudgeRun.objects.filter(pk=run.pk)):
        run.refresh_from_db()
    template = "console/llm_run.html#run-progress" if request.htmx else "console/llm_run.html"
    return render(request, template, {"campaign": run.campaign, "run": run, "tab": "agreement"})


@login_required
@require_POST
def llm_run_cancel(request: HttpRequest, slug: str, run: int) -> HttpResponse:
    """Stop a queued or running run: nothing more is asked; what was written and cached stays."""
    run = llm_run_for_organiser(request.user, slug, run)
    said = jobs.cancel(run, request.user)
    if request.htmx:  # the progress block again, now saying it is cancelling (or ended)
        run.refresh_from_db()
        return render(request, "console/llm_run.html#run-progress", {"campaign": run.campaign, "run": run})
    messages.info(request, said)
    return redirect("console:llm_run", slug=run.campaign.slug, run=run.pk)


@login_required
@require_POST
def proposals(request: HttpRequest, slug: str) -> HttpResponse:
    """Choose the automatic judge whose nuggets annotators see as suggestions (or nobody)."""
    campaign = campaign_for_organiser(request.user, slug)
    form = ProposalsForm(request.POST, campaign=campaign)
    if form.is_valid():
        form.save()
        chosen = form.cleaned_data["proposals_from"]
        messages.success(request, f"Annotators now see the proposals of {chosen.get_username()}." if chosen
                         else "Annotators see no judge's proposals.")
        return redirect("console:llm_judge", slug=campaign.slug)
    return _page(request, campaign, LlmJudgeForm(campaign=campaign, page_url=reverse("console:llm_judge", args=[slug])),
                 form, status=400)
