"""The annotator's queue: their conversations grouped by topic, with progress, and the way to
the next unfinished one."""

from __future__ import annotations

from itertools import groupby

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from annotator.models import Assignment
from annotator.judgments.progress import progress_for


def _assignments(user) -> list[Assignment]:
    return list(
        Assignment.objects.filter(annotator=user, conversation__topic__campaign__staging_for__isnull=True)  # not an import's staged
        .select_related("conversation__topic__campaign", "conversation__run")
        .order_by("conversation__topic__campaign__slug", "conversation__topic__code", "conversation__run__name")
    )


def _first_unfinished(assignments, progress, after: int | None = None) -> Assignment | None:
    """The first unfinished conversation in queue order (after `after`, wrapping round)."""
    unfinished = [a for a in assignments if not progress[a.conversation_id].finished]
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
    """Queries: session, user, assignments with conversations, then progress_for's five."""
    assignments = _assignments(request.user)
    progress = progress_for(request.user, [a.conversation for a in assignments])
    topics = []
    for (_campaign, _code), rows in groupby(
        assignments, key=lambda a: (a.conversation.topic.campaign_id, a.conversation.topic.code)
    ):
        rows = list(rows)
        topic = rows[0].conversation.topic
        items = [{"assignment": a, "conversation": a.conversation, "progress": progress[a.conversation_id]} for a in rows]
        topics.append({"topic": topic, "items": items, "finished": sum(1 for i in items if i["progress"].finished)})
    return render(
        request,
        "annotator/queue.html",
        {
            "topics": topics,
            "total": len(assignments),
            "finished": sum(1 for p in progress.values() if p.finished),
            "next": _first_unfinished(assignments, progress),
        },
    )


@login_required
@require_GET
def next_unfinished(request: HttpRequest) -> HttpResponse:
    """Go to the next unfinished conversation (after ?after=<conversation id>), else the queue."""
    assignments = _assignments(request.user)
    progress = progress_for(request.user, [a.conversation for a in assignments])
    try:
        after = int(request.GET.get("after", ""))
    except ValueError:
        after = None
    found = _first_unfinished(assignments, progress, after)
    if found is None:
        return redirect("queue")
    return redirect("conversation", conversation_id=found.conversation_id)
