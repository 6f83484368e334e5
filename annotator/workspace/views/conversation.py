"""The annotator's workspace, read side: the conversation page, the score panel, the entity
link suggestions and the live membership check. Edits are in annotator.workspace.views.edits.

Pages and fragments come from one template (annotator/conversation.html) and its partials;
what they show comes from annotator.workspace.page_context (the page) and .score_panel (the
panel alone). Every view starts with an access helper: another annotator's conversation or
nugget is a 404.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from annotator.access import assignment_for_annotator, attribute_set_of, nugget_in_conversation
from annotator.rules.vectors import format_vector
from annotator.scores.per_conversation import score_conversation
from annotator.workspace.conversation_html import render_datalist
from annotator.workspace.forms import MembershipForm
from annotator.workspace.page_context import workbench_context
from annotator.workspace.queries import entity_options_of
from annotator.workspace.score_panel import score_panel_context

TEMPLATE = "annotator/conversation.html"


@login_required
@require_GET
def conversation(request: HttpRequest, conversation_id: int) -> HttpResponse:
    assignment = assignment_for_annotator(request.user, conversation_id)
    try:
        selected_id = int(request.GET.get("nugget", ""))
    except ValueError:
        selected_id = None
    context = workbench_context(request, assignment, selected_id=selected_id)
    if request.htmx and not request.htmx.boosted:
        context["oob"] = True
        return render(request, f"{TEMPLATE}#edit-response", context)
    return render(request, TEMPLATE, context)


@login_required
@require_GET
def score_panel(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """The score panel alone: R, GF, GF per attribute set, GFRC, Tables 1 and 2 (4 queries
    after the assignment: attribute sets, turns, nuggets with entities and grades, memberships)."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    score = score_conversation(assignment.conversation, request.user)
    return render(request, f"{TEMPLATE}#score-panel", score_panel_context(score))


@login_required
@require_GET
def entity_options(request: HttpRequest, conversation_id: int, nugget_id: int) -> HttpResponse:
    """The <option>s of the entity link field: the annotator's other entities of the topic."""
    nugget = nugget_in_conversation(request.user, conversation_id, nugget_id)
    return HttpResponse(render_datalist(entity_options_of(nugget.entity.topic_id, request.user.pk), nugget.entity_id))


@login_required
@require_POST
def check_membership(request: HttpRequest, conversation_id: int, attribute_set_id: int) -> HttpResponse:
    """Live check while a vector or evidence is typed: the vector it gives, or why it cannot be
    saved (the same MembershipForm rules as a save; nothing is written)."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    attribute_set = attribute_set_of(assignment, attribute_set_id)
    prefix = f"m{attribute_set.pk}"
    data = request.POST.copy()
    data[f"{prefix}-do"] = "typed"
    data[f"{prefix}-version"] = "1"  # a check saves nothing: no version to compare
    data.pop(f"{prefix}-group", None)
    form = MembershipForm(data, attribute_set=attribute_set, prefix=prefix)
    if not (data.get(f"{prefix}-vector", "").strip() or data.get(f"{prefix}-evidence", "").strip()):
        return HttpResponse("")
    if form.is_valid():
        context = {"ok": True, "vector": format_vector(form.cleaned_data["result"])}
    else:
        errors = [str(e) for errors in form.errors.values() for e in errors]
        context = {"ok": False, "error": errors[0] if errors else "This cannot be saved yet."}
    return render(request, f"{TEMPLATE}#membership-check", context)
