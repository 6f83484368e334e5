"""The template context of the workspace: the conversation page, and every edit's answer
(annotator.workspace.views.edits.respond). It reads through annotator.workspace.queries,
lays out the editor (.editor) and the score panel (.score_panel), and has the conversation
column rendered (.conversation_html); of HTTP it knows the request's user, session (the
dismissed suggestions), CSRF token and whether htmx asked.
"""

from __future__ import annotations

from django.middleware.csrf import get_token

from annotator.models import Assignment, Turn
from annotator.models.conversations import parent_position, path_through
from annotator.scores.stored.figures import StoredScore
from annotator.workspace.affected import Affected, turns_to_render
from annotator.workspace.control_urls import urls_for
from annotator.workspace.conversation_html import render_turns
from annotator.workspace.dismissals import branch_in_session, dismissed_in_session
from annotator.workspace.editor import editor_context
from annotator.workspace.queries import read_workbench
from annotator.workspace.score_panel import score_panel_context
from annotator.workspace.workbench import Workbench


def workbench_context(
    request,
    assignment: Assignment,
    *,
    selected_id: int | None = None,
    bound: dict | None = None,
    message: str = "",
    level: str = "info",
    with_panel: bool = True,
    only: Affected | None = None,
    stored: StoredScore | None = None,
) -> dict:
    """Everything the workspace shows, in a fixed number of queries: those of
    queries.read_workbench (the guidelines with the whole page only), then the selected
    nugget's entity's memberships (when one is selected: editor_context). With `only`, the
    conversation column holds just the turns that edit can have changed; `stored`: the score
    the edit's save stored, shown without scoring the same judgments again.
    """
    conversation = assignment.conversation
    topic = conversation.topic
    branch = branch_of(conversation, branch_in_session(request, conversation.pk)) if conversation.is_tree else {}
    read = read_workbench(conversation, request.user, dismissed=dismissed_in_session(request, conversation.pk),
                          with_guidelines=not request.htmx, stored=stored, path=branch.get("path"))
    score = read.score
    selected = next((n for n in score.nuggets if n.nugget.pk == selected_id), None)
    bench = Workbench(
        score=score,
        labels=read.labels,
        selected_id=selected.nugget.pk if selected else None,
        urls=urls_for(conversation.pk),
        csrf_token=get_token(request),
        candidates=read.candidates,
        **branch,
    )
    system_turns = score.system_turns
    rendered, lines, looks = turns_to_render(bench, only)
    context = {
        "assignment": assignment,
        "conversation": conversation,
        "topic": topic,
        "campaign": topic.campaign,
        "attribute_sets": read.attribute_sets,
        "attribute_set_rows": [
            {"set": a, "groups": [(g, round(100 * t, 1)) for g, t in zip(a.groups, a.target)]} for a in read.attribute_sets
        ],
        "score": score,
        "turns_html": render_turns(bench, rendered, lines, looks),
        "candidates": bench.candidates,
        "grades": read.grades,
        "selected": selected,
        "message": message,
        "level": level,
        "labelled": sum(1 for t in system_turns if t.turn.pk in read.labels),
        "system_turn_count": len(system_turns),
        "total_words": score.turns[-1].end_wc if score.turns else 0,
    }
    if not request.htmx:  # the whole page: the guidelines beside the text
        context["guidelines"] = read.guidelines
    if with_panel:
        context.update(score_panel_context(score, rendered, looks), with_panel=True, expected=read.expected)
    if selected is not None:
        context.update(editor_context(selected, score, read.attribute_sets, read.grades, bound or {}))
    return context


def branch_of(conversation, chosen: int | None) -> dict:
    """The path the page shows of a conversation that branches (the one through the turn id
    `chosen`, else the branch the chat showed) and each of its turns' siblings. One query."""
    turns = list(Turn.objects.filter(conversation=conversation).order_by("position").only("position", "follows", "shown"))
    path = [turns[i] for i in path_through(turns, chosen)]
    followers: dict[int | None, list[int]] = {}
    for turn in turns:
        followers.setdefault(parent_position(turn.position, turn.follows), []).append(turn.pk)
    return {"path": frozenset(turn.pk for turn in path),
            "siblings": {turn.pk: ids for turn in path
                         if len(ids := followers[parent_position(turn.position, turn.follows)]) > 1}}
