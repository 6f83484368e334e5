"""Campaign set-up in the browser: settings and grades, attribute sets, uploads, assignment."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotator.console import assigning
from annotator.interchange.imports import jobs as import_jobs
from annotator.interchange.imports import conversations as importing
from annotator.access import assignable_annotators, campaign_for_organiser, import_job_for_organiser
from annotator.accounts import JudgeRefused
from annotator.console.forms import (
    AssignForm,
    AttributeSetForm,
    CampaignSettingsForm,
    GradeFormSet,
    StaleForm,
    UploadForm,
)
from annotator.console.setup_forms import TopicTypeForm
from annotator.console.harvest_forms import HarvestSettingsForm
from annotator.models import AttributeSet, Conversation, ImportJob, TopicType


@login_required
def settings(request: HttpRequest, slug: str) -> HttpResponse:
    """L, grade -> gain, alpha, method, empty turns, turn weight, duplicates; version-checked."""
    campaign = campaign_for_organiser(request.user, slug)
    if request.method == "POST":
        form = CampaignSettingsForm(request.POST, instance=campaign)
        grades = GradeFormSet(request.POST, instance=campaign, prefix="grades")
        if form.is_valid() and grades.is_valid():
            try:
                form.save_checked(extra=lambda obj: grades.save(), grades_changed=grades.has_changed())
            except StaleForm as stale:
                messages.error(request, str(stale))
                return redirect("console:settings", slug=campaign.slug)
            messages.success(request, "Settings saved: every score now follows them.")
            return redirect("console:settings", slug=campaign.slug)
    else:
        form = CampaignSettingsForm(instance=campaign)
        grades = GradeFormSet(instance=campaign, prefix="grades")
    topic_types = campaign.topic_types.prefetch_related("attribute_sets")
    return render(
        request,
        "console/settings.html",
        {"campaign": campaign, "form": form, "grades": grades, "topic_types": topic_types, "tab": "settings",
         "topic_type_form": TopicTypeForm(campaign=campaign), "asked": HarvestSettingsForm(campaign=campaign)},
    )


@login_required
def attribute_set(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    instance = get_object_or_404(AttributeSet.objects.select_related("topic_type"), pk=pk, topic_type__campaign=campaign)
    return _attribute_set_page(request, campaign, instance.topic_type, instance)


@login_required
def attribute_set_new(request: HttpRequest, slug: str, topic_type: int) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    kind = get_object_or_404(TopicType, pk=topic_type, campaign=campaign)
    return _attribute_set_page(request, campaign, kind, AttributeSet(topic_type=kind))


def _attribute_set_page(request, campaign, topic_type, instance) -> HttpResponse:
    if request.method == "POST":
        form = AttributeSetForm(request.POST, instance=instance, topic_type=topic_type)
        if form.is_valid():
            try:
                saved = form.save_checked()
            except StaleForm as stale:
                messages.error(request, str(stale))
                return redirect("console:attribute_set", slug=campaign.slug, pk=instance.pk)
            messages.success(request, f"{saved.name} saved: every score now follows it.")
            return redirect("console:settings", slug=campaign.slug)
    else:
        form = AttributeSetForm(instance=instance, topic_type=topic_type)
    return render(
        request,
        "console/attribute_set.html",
        {"campaign": campaign, "form": form, "topic_type": topic_type, "attribute_set": instance, "tab": "settings"},
    )


@login_required
def upload(request: HttpRequest, slug: str) -> HttpResponse:
    """Import conversation files with the backbone's importer: all or nothing, errors by file:line.
    Large uploads go to the background worker: the answer is then the job's page."""
    campaign = campaign_for_organiser(request.user, slug)
    errors: list[str] = []
    warnings: list[str] = []
    if request.method == "POST":
        form = UploadForm(request.POST, request.FILES, campaign=campaign)
        annotator = None
        if form.is_valid():
            try:
                annotator = form.judgments_of()
            except JudgeRefused as refused:  # the name was taken since the form was checked
                form.add_error("new_judge", str(refused))
        if form.is_valid():
            files = [(f.name, f.read()) for f in form.cleaned_data["files"]]
            run, replace = form.cleaned_data["run"] or None, form.cleaned_data["replace"]
            topic = form.cleaned_data["topic"] or None
            if import_jobs.runs_in_background(files):
                job = import_jobs.start(campaign, files, run=run, topic=topic, replace=replace, annotator=annotator,
                                        actor=request.user)
                return redirect("console:import_job", slug=campaign.slug, job=job.pk)
            result = importing.import_files(
                campaign, files, run=run, topic=topic, replace=replace, annotator=annotator, actor=request.user
            )
            errors = [str(e) for e in result.errors]
            warnings = [str(w) for w in result.warnings]
            if not errors:
                for said in result.read:
                    messages.info(request, said)
                messages.success(request, result.summary())
                for warning in warnings[:50]:
                    messages.warning(request, warning)
                return redirect("console:upload", slug=campaign.slug)
    else:
        form = UploadForm(campaign=campaign)
    return render(
        request,
        "console/upload.html",
        {"campaign": campaign, "form": form, "errors": errors, "warnings": warnings, "tab": "upload",
         "jobs": import_jobs.recent_jobs(campaign)},
        status=400 if errors or form.errors else 200,
    )


@login_required
def import_job(request: HttpRequest, slug: str, job: int) -> HttpResponse:
    """A background import's progress; htmx polls the progress fragment until the job ends."""
    job = import_job_for_organiser(request.user, slug, job)
    if import_jobs.reap_abandoned(ImportJob.objects.filter(pk=job.pk)):
        job.refresh_from_db()
    template = "console/import_job.html#job-progress" if request.htmx else "console/import_job.html"
    return render(request, template, {"campaign": job.campaign, "job": job, "tab": "upload"})


@login_required
@require_POST
def import_job_cancel(request: HttpRequest, slug: str, job: int) -> HttpResponse:
    """Cancel a background import before it publishes: nothing of it is imported."""
    job = import_job_for_organiser(request.user, slug, job)
    said = import_jobs.cancel(job, request.user)
    if request.htmx:  # the progress block again, now saying it is cancelling (or ended)
        job.refresh_from_db()
        return render(request, "console/import_job.html#job-progress", {"campaign": job.campaign, "job": job})
    messages.info(request, said)
    return redirect("console:import_job", slug=job.campaign.slug, job=job.pk)


@login_required
def assign(request: HttpRequest, slug: str) -> HttpResponse:
    """Deal conversations out to annotators in bulk, optionally two (or three) per conversation."""
    campaign = campaign_for_organiser(request.user, slug)
    form = AssignForm(request.POST or None, campaign=campaign, annotators=assignable_annotators(request.user, campaign))
    if request.method == "POST" and form.is_valid():
        conversations = Conversation.objects.filter(topic__campaign=campaign).order_by("topic__code", "run__name")
        if form.cleaned_data["topics"]:
            conversations = conversations.filter(topic__in=form.cleaned_data["topics"])
        if form.cleaned_data["runs"]:
            conversations = conversations.filter(run__in=form.cleaned_data["runs"])
        try:
            added = assigning.assign(list(conversations), list(form.cleaned_data["annotators"]), form.cleaned_data["per_conversation"])
        except assigning.AssignmentRefused as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(request, f"{added} assignment(s) added.")
            return redirect("console:progress", slug=campaign.slug)
    return render(request, "console/assign.html", {"campaign": campaign, "form": form, "tab": "assign"})
