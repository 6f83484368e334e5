"""A campaign from nothing, in the browser: a new campaign (from a template or a campaign file),
its topic types, its topics (one at a time, or a topics file), its runs' systems and trials, and
its guidelines (Markdown, kept version by version). People are on the accounts page
(views/accounts.py); settings and attribute sets on the settings page (views/campaign.py)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotator.access import campaign_for_organiser, may_create_campaigns
from annotator.console.setup_forms import GuidelinesForm, NewCampaignForm, RunForm, TopicForm, TopicsFileForm, TopicTypeForm
from annotator.interchange.imports.campaign_file import CampaignFileError, create_campaign
from annotator.interchange.imports.topics import import_topics, remove_topic
from annotator.judgments import guidelines as campaign_guidelines
from annotator.models import Assignment, Campaign, Guidelines, Nugget, Run, Topic, TopicType


@login_required
@require_http_methods(["GET", "POST"])
def new_campaign(request: HttpRequest) -> HttpResponse:
    """A new campaign, organised by its maker: from a shipped or an own campaign's settings,
    topic types and attribute sets, or from an uploaded campaign file."""
    if not may_create_campaigns(request.user):
        raise PermissionDenied("An administrator allows an account to create campaigns (admin: the permission "
                               "GFRC annotation | campaign | Can add campaign).")
    form = NewCampaignForm(request.POST or None, request.FILES or None, user=request.user)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        try:
            report = create_campaign(form.campaign_data(), slug=form.cleaned_data["slug"], name=form.cleaned_data["name"],
                                     organiser=request.user, source=form.source)
        except CampaignFileError as refused:
            problems = [str(p) for p in refused.problems]
        else:
            messages.success(request, f"{report.summary()}. Next: its topics, its people and its guidelines.")
            return redirect("console:topics", slug=report.campaign.slug)
    return render(request, "console/new_campaign.html", {"form": form, "problems": problems},
                  status=400 if form.errors or problems else 200)


def _topics_page(request: HttpRequest, campaign: Campaign, *, form=None, file_form=None, errors=(), run_forms=None,
                 status=200):
    topics = (Topic.objects.filter(campaign=campaign).select_related("topic_type").order_by("code")
              .annotate(conversation_count=Count("conversations", distinct=True)))
    runs = Run.objects.filter(campaign=campaign).order_by("name").annotate(
        conversation_count=Count("conversations", distinct=True), list_count=Count("ranked_lists", distinct=True))
    run_forms = run_forms or {}
    return render(request, "console/topics.html", {
        "campaign": campaign, "tab": "topics", "topics": topics,
        "runs": [(run, run_forms.get(run.pk) or RunForm(instance=run, prefix=f"run{run.pk}")) for run in runs],
        "form": form or TopicForm(campaign=campaign), "file_form": file_form or TopicsFileForm(), "errors": list(errors),
    }, status=status)


@login_required
@require_POST
def run(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    """A run's system and trial (and its kind while it holds nothing)."""
    campaign = campaign_for_organiser(request.user, slug)
    found = Run.objects.filter(campaign=campaign, pk=run_id).first()
    if found is None:
        raise Http404("No such run in this campaign.")
    form = RunForm(request.POST, instance=found, prefix=f"run{found.pk}")
    if form.is_valid():
        form.save()
        messages.success(request, f"Run {found.name} saved.")
        return redirect("console:topics", slug=campaign.slug)
    return _topics_page(request, campaign, run_forms={found.pk: form}, status=400)


@login_required
@require_POST
def topic_type(request: HttpRequest, slug: str) -> HttpResponse:
    """Add a topic type (or rename one: `topic_type` its id)."""
    campaign = campaign_for_organiser(request.user, slug)
    raw = request.POST.get("topic_type", "")
    instance = TopicType.objects.filter(campaign=campaign, pk=int(raw)).first() if raw.isdigit() and len(raw) < 19 else None
    form = TopicTypeForm(request.POST, instance=instance, campaign=campaign)
    if form.is_valid():
        saved = form.save()
        messages.success(request, f"Topic type {saved.code} saved: add its attribute sets below.")
    else:
        messages.error(request, "The topic type was not saved: " + "; ".join(
            str(e) for errors in form.errors.values() for e in errors))
    return redirect(reverse("console:settings", args=[campaign.slug]) + "#topic-types")


@login_required
@require_http_methods(["GET", "POST"])
def topics(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the campaign's topics. POST: add one."""
    campaign = campaign_for_organiser(request.user, slug)
    if request.method == "GET":
        return _topics_page(request, campaign)
    form = TopicForm(request.POST, campaign=campaign)
    if form.is_valid():
        topic = form.save()
        messages.success(request, f"Topic {topic.code} added.")
        return redirect("console:topics", slug=campaign.slug)
    return _topics_page(request, campaign, form=form, status=400)


@login_required
@require_POST
def topics_file(request: HttpRequest, slug: str) -> HttpResponse:
    """Add topics from a TSV or JSONL file: all or nothing, errors by file:line."""
    campaign = campaign_for_organiser(request.user, slug)
    file_form = TopicsFileForm(request.POST, request.FILES)
    if not file_form.is_valid():
        return _topics_page(request, campaign, file_form=file_form, status=400)
    upload = file_form.cleaned_data["topics_file"]
    result = import_topics(campaign, upload.name, upload.read())
    if result.errors:
        return _topics_page(request, campaign, file_form=file_form, errors=[str(e) for e in result.errors], status=400)
    messages.success(request, result.summary())
    return redirect("console:topics", slug=campaign.slug)


def _topic_of(campaign: Campaign, topic_id: int) -> Topic:
    topic = Topic.objects.select_related("topic_type").filter(campaign=campaign, pk=topic_id).first()
    if topic is None:
        raise Http404("No such topic in this campaign.")
    return topic


@login_required
@require_http_methods(["GET", "POST"])
def topic(request: HttpRequest, slug: str, topic_id: int) -> HttpResponse:
    """Edit one topic: its code, its type (while nobody judged it), its text."""
    campaign = campaign_for_organiser(request.user, slug)
    topic = _topic_of(campaign, topic_id)
    form = TopicForm(request.POST or None, instance=topic, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, f"Topic {topic.code} saved.")
        return redirect("console:topics", slug=campaign.slug)
    return render(request, "console/topic.html", {"campaign": campaign, "tab": "topics", "topic": topic, "form": form},
                  status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def topic_remove(request: HttpRequest, slug: str, topic_id: int) -> HttpResponse:
    """GET: what removing the topic takes with it. POST: remove it, and all that."""
    campaign = campaign_for_organiser(request.user, slug)
    topic = _topic_of(campaign, topic_id)
    if request.method == "POST":
        code = topic.code
        remove_topic(topic)  # its conversations, their turns, judgments, history and figures go with it
        messages.success(request, f"Topic {code} removed, with everything on it.")
        return redirect("console:topics", slug=campaign.slug)
    goes = {
        "conversations": topic.conversations.count(),
        "assignments": Assignment.objects.filter(conversation__topic=topic).count(),
        "done": Assignment.objects.filter(conversation__topic=topic, done_at__isnull=False).count(),
        "nuggets": Nugget.objects.filter(turn__conversation__topic=topic).count(),
        "entities": topic.entities.count(),
        "annotators": Assignment.objects.filter(conversation__topic=topic).values("annotator").distinct().count(),
        "judged_by": sorted(set(Nugget.objects.filter(turn__conversation__topic=topic)
                                .values_list("annotator__username", flat=True))),
    }
    return render(request, "console/topic_remove.html", {"campaign": campaign, "tab": "topics", "topic": topic, "goes": goes})


@login_required
@require_http_methods(["GET", "POST"])
def guidelines(request: HttpRequest, slug: str) -> HttpResponse:
    """The campaign's guidelines and a note per topic type, in Markdown; every change a new
    version (?version=N shows an earlier one)."""
    campaign = campaign_for_organiser(request.user, slug)
    current = Guidelines.in_force(campaign.pk)
    initial = {"text": current.text, **{f"note_{k}": v for k, v in current.notes.items()}} if current else {}
    form = GuidelinesForm(request.POST or None, campaign=campaign, initial=initial)
    if request.method == "POST" and form.is_valid():
        saved = campaign_guidelines.write(campaign, text=form.cleaned_data["text"], notes=form.notes(), author=request.user)
        messages.success(request, f"Version {saved.version} of the guidelines is in force." if saved
                         else "Nothing changed: the guidelines in force stay.")
        return redirect("console:guidelines", slug=campaign.slug)
    versions = Guidelines.objects.filter(campaign=campaign).select_related("author").order_by("-version")
    shown = current
    if request.GET.get("version", "").isdigit():
        shown = versions.filter(version=int(request.GET["version"])).first() or current
    return render(request, "console/guidelines.html", {
        "campaign": campaign, "tab": "guidelines", "form": form, "versions": versions[:50], "shown": shown,
        "shown_notes": sorted(shown.notes.items()) if shown else [],
    }, status=400 if form.errors else 200)
