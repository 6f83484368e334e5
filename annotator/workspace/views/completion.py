"""Saying a conversation is done (and reopening it), and the heartbeat that measures the time on
task: annotator.judgments.completion and annotator.judgments.activity do the work (every POST
answered by `respond` is a sign of work too)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from annotator.access import assignment_for_annotator
from annotator.judgments import activity, completion
from annotator.workspace.affected import NOTHING
from annotator.workspace.views.edits import respond


def _selected(request: HttpRequest) -> int | None:
    value = request.POST.get("selected", "")
    return int(value) if value.isdigit() and len(value) < 19 else None


@login_required
@require_POST
def done(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Say the conversation is done: refused (422) with what is missing while a nugget lacks a
    grade or a membership the campaign requires."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    try:
        completion.mark_done(assignment)
    except completion.NotDone as refused:
        return respond(request, assignment, selected_id=_selected(request), message=str(refused), level="error",
                       status=422, only=NOTHING, done_changed=True)
    return respond(request, assignment, selected_id=_selected(request), only=NOTHING, level="success", done_changed=True,
                   message="Done. It counts as done on every page; reopen it if you go back to it.")


@login_required
@require_POST
def reopen(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """The conversation is not done any more."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    completion.reopen(assignment)
    return respond(request, assignment, selected_id=_selected(request), only=NOTHING, done_changed=True,
                   message="Reopened: it is not done any more.")


@login_required
@require_POST
def heartbeat(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """The page is visible and used: a sign of work (204, nothing to show)."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    activity.record(assignment.pk)
    return HttpResponse(status=204)
