"""The annotator's queue: their conversations grouped by topic, with progress, whether each is
done (`Assignment.done_at`, the one "done": annotator.judgments.completion), the way to the next
one not done, and each campaign's guidelines."""

from __future__ import annotations

from itertools import groupby

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from annotator.models import Assignment
from annotator.judgments.guidelines import in_force as guidelines_in_force
from annotator.judgments.progress import progress_for


def _assignments(user) -> list[Assignment]:
    return list(
        Assignment.objects.filter(annotator=user, conversation__topic__campaign__staging_for__isnull=True)  # not an import's staged
        .select_related("conversation__topic__campaign", "conversation__run")
        .order_by("conversation__topic__campaign__slug", "conversation__topic__code", "conversation__run__name")
    )


def _first_unfinished(assignments, after: int | None = None) -> Assignment | None:
    """The first conversation not done, in queue order (after `after`, wrapping round)."""
    unfinished = [a for a in assignments if a.done_at is None]
    if after is not None:
        ids = [a.conversation_id for a in assignments]
        if after in ids:
            index = ids.index(after)
            later = [a for a in unfinished if ids.index(a.conversation_id) > index]
            unfinished = later + [a for a in unfinished if a.conversation_id != after and a not in later]
    return unfinished[0] if unfinished else None


@login_required
@require_GET
def queue(request: HttpRequest) -> HttpResponse:
    """Queries: session, user, assignments with conversations, progress_for's three, and the
    guidelines in force of each campaign (one each)."""
    assignments = _assignments(request.user)
    progress = progress_for(request.user, [a.conversation for a in assignments])
    topics = []
    for (_campaign, _code), rows in groupby(
        assignments, key=lambda a: (a.conversation.topic.campaign_id, a.conversation.topic.code)
    ):
        rows = list(rows)
        topic = rows[0].conversation.topic
        items = [{"assignment": a, "conversation": a.conversation, "progress": progress[a.conversation_id]} for a in rows]
        topics.append({"topic": topic, "items": items, "done": sum(1 for a in rows if a.done_at is not None)})
    campaigns = {a.conversation.topic.campaign_id: a.conversation.topic.campaign for a in assignments}
    guidelines = [(campaign, shown) for campaign in campaigns.values()
                  if (shown := guidelines_in_force(campaign.pk)) is not None]
    return render(
        request,
        "annotator/queue.html",
        {
            "topics": topics,
            "total": len(assignments),
            "done": sum(1 for a in assignments if a.done_at is not None),
            "next": _first_unfinished(assignments),
            "guidelines": guidelines,
        },
    )


@login_required
@require_GET
def next_unfinished(request: HttpRequest) -> HttpResponse:
    """Go to the next conversation not done (after ?after=<conversation id>), else the queue."""
    assignments = _assignments(request.user)
    try:
        after = int(request.GET.get("after", ""))
    except ValueError:
        after = None
    found = _first_unfinished(assignments, after)
    if found is None:
        return redirect("queue")
    return redirect("conversation", conversation_id=found.conversation_id)
