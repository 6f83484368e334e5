"""Workspace edits: every change goes through annotator.judgments.edits (the business rules).

Each view: access helper first (404 for what is not yours), then a form (the rules of what
may be typed), then one service call, then `respond`. `_edit` is the one home of the
form -> service -> answer chain: refusals of the domain (AnnotationRefused) come back as form
messages (422), edits based on an old version (StaleEdit) as 409 with the latest state.
Every answer is one request's worth: the turns the edit changed, the editor, the counts and
the score panel, out of band. Each service is called through edits.save_with_score: the
panel shows the score the save stored, not a second one scored afresh.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import reswap

from annotator.judgments import activity, edits
from annotator.access import assignment_for_annotator, attribute_set_of, nugget_in_conversation, turn_for_annotator
from annotator.workspace.forms import (
    DismissForm,
    EntityDetailsForm,
    EntityLinkForm,
    EntityGradeForm,
    LabelForm,
    MembershipForm,
    NuggetSpanForm,
    SpanForm,
    VersionForm,
)
from annotator.models import Assignment, Entity, Grade, Turn
from annotator.models.conversations import word_offsets
from annotator.scores.stored.figures import StoredScore
from annotator.workspace.affected import NOTHING, Affected, EditorChange, entity_touched, nugget_touched, touched
from annotator.workspace.dismissals import dismiss_in_session
from annotator.workspace.page_context import workbench_context

TEMPLATE = "annotator/conversation.html"


def respond(
    request: HttpRequest,
    assignment: Assignment,
    *,
    selected_id: int | None,
    changed: bool = False,
    message: str = "",
    level: str = "info",
    status: int = 200,
    bound: dict | None = None,
    only: Affected | None = None,
    editor: EditorChange | None = None,
    done_changed: bool = False,
    stored: StoredScore | None = None,
) -> HttpResponse:
    """The answer to any workspace action: one request carries everything the edit changed.

    htmx: the conversation column (target #turns), the editor, the counts and, when judgments
    changed, the score panel (all out of band). When the view says what it touched (`only`),
    the column is not sent whole: just the <section>s of the turns whose rendering can have
    changed, each out of band (HX-Reswap: none), so the answer's size follows the edit, not
    the conversation. When the edit kept the selection and changed its entity (`editor`), the
    editor is not sent whole either: just its parts that can differ. `stored`: the score the
    edit's save stored, which the panel shows (annotator.judgments.edits.save_with_score).
    Plain forms: a redirect back to the page (success) or the whole page with the message
    (refusal).
    """
    with_done = done_changed
    if request.method == "POST":  # a sign of work: the time on task (annotator.judgments.activity)
        activity.record(assignment.pk)
        if changed and assignment.done_at is not None:  # the save may have reopened it (annotator.judgments.completion)
            assignment.refresh_from_db(fields=["done_at", "guidelines_version"])
            with_done = True
    if not request.htmx and status < 400:
        if message:
            messages.add_message(request, messages.SUCCESS if level == "success" else messages.INFO, message)
        url = reverse("conversation", kwargs={"conversation_id": assignment.conversation_id})
        return redirect(f"{url}?nugget={selected_id}#editor" if selected_id else url, permanent=False)
    context = workbench_context(
        request, assignment, selected_id=selected_id, bound=bound, message=message, level=level,
        with_panel=changed or not request.htmx, only=only if request.htmx else None, stored=stored,
    )
    if request.htmx:
        context["oob"] = True
        context["with_done"] = with_done  # the Done control, when its state may have changed
        context["editor_change"] = editor if only is not None and context.get("selected") is not None else None
        if only is not None:
            response = render(request, f"{TEMPLATE}#edit-turns-response", context, status=status)
            reswap(response, "none")  # everything in it is out of band
        else:
            response = render(request, f"{TEMPLATE}#edit-response", context, status=status)
    else:
        response = render(request, TEMPLATE, context, status=status)
    return response


@dataclass(frozen=True)
class Done:
    """What an edit did, for its answer: the turns it touched, the nugget selected after it."""

    only: Affected
    selected_id: int | None
    message: str = ""
    changed: bool = True  # judgments changed (not so for a dismissed suggestion)
    editor: EditorChange | None = None  # an edit of the selected nugget's entity: the editor's parts it changed
    stored: StoredScore | None = None  # the score the save stored (edits.save_with_score), for the panel


def _selected(request: HttpRequest) -> int | None:
    try:
        return int(request.POST.get("selected", ""))
    except ValueError:
        return None


def _first_error(form) -> str:
    for errors in form.errors.values():
        return str(errors[0])
    return "That was not saved."


def _stale(request, assignment, error: edits.StaleEdit, *, selected_id: int | None) -> HttpResponse:
    """An edit based on an old version: 409 with the latest state (the whole column)."""
    return respond(request, assignment, selected_id=selected_id, message=str(error), level="error", status=409,
                   changed=True)


def _edit(request, assignment, form, change: Callable[[dict], Done], *, selected_id: int | None,
          bound: dict | None = None) -> HttpResponse:
    """Validate the form, make the change, answer; refusals keep the form's message (422), a
    stale version gets the latest state (409)."""
    if form.is_valid():
        try:
            done = change(form.cleaned_data)
        except edits.StaleEdit as error:
            return _stale(request, assignment, error, selected_id=selected_id)
        except edits.AnnotationRefused as error:
            form.add_error(None, str(error))
        else:
            return respond(request, assignment, selected_id=done.selected_id, changed=done.changed,
                           only=done.only, message=done.message, level="success" if done.message else "info",
                           editor=done.editor, stored=done.stored)
    return respond(request, assignment, selected_id=selected_id, message=_first_error(form), level="error",
                   status=422, bound=bound, only=NOTHING)  # nothing was written: no turn looks different


def _words_before(turns, turn) -> int:
    """The conversation-wide position of the word before `turn`'s first (`turns`: all of them)."""
    ordered = sorted(turns, key=lambda t: t.position)
    return word_offsets(ordered)[[t.pk for t in ordered].index(turn.pk)]


def _turns_of(assignment) -> dict[int, Turn]:
    conversation = assignment.conversation
    # .order_by(): a dict needs no order, and Turn's default one joins three tables to sort
    turns = {t.pk: t for t in Turn.objects.filter(conversation_id=conversation.pk).order_by()}
    for turn in turns.values():
        turn.conversation = conversation
    return turns


@login_required
@require_POST
def create_nugget(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Mark words (a selection, a line, an accepted suggestion) as a nugget; its entity comes
    from its text: the annotator's entity of the topic with the same URL (or name), else new;
    for words the system cited, from the cited page."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    form = SpanForm(request.POST, turns=_turns_of(assignment), annotator=request.user)

    def change(data) -> Done:
        nugget, stored = edits.save_with_score(
            edits.create_nugget, annotator=request.user, actor=request.user, turn=data["turn"], start_word=data["start"],
            end_word=data["end"], cited=data.get("cited"),
        )
        return Done(nugget_touched(nugget), nugget.pk, stored=stored)

    return _edit(request, assignment, form, change, selected_id=_selected(request))


@login_required
@require_POST
def dismiss_suggestion(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Dismiss a suggested nugget. Dismissals live server-side in the session (per conversation):
    they survive reloads but are not judgments (nothing to score, nothing to undo)."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    form = DismissForm(request.POST, turns=_turns_of(assignment), annotator=request.user)

    def change(data) -> Done:
        dismiss_in_session(request, conversation_id, data["turn"].pk, data["start"], data["end"])
        return Done(touched([data["turn"].pk]), _selected(request), changed=False)

    return _edit(request, assignment, form, change, selected_id=_selected(request))


@login_required
@require_http_methods(["GET", "POST"])
def nugget(request: HttpRequest, conversation_id: int, nugget_id: int) -> HttpResponse:
    """GET: select the nugget (the editor shows it). POST: move it to other words of its turn."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request.user, conversation_id, nugget_id)
    if request.method == "GET":
        if not request.htmx:
            url = reverse("conversation", kwargs={"conversation_id": conversation_id})
            return redirect(f"{url}?nugget={nugget.pk}#editor")
        # nothing in the column changes: annotate.js marks the selection (syncSelection)
        return respond(request, assignment, selected_id=nugget.pk, only=NOTHING)
    form = NuggetSpanForm(request.POST, nugget=nugget, offset=_words_before(_turns_of(assignment).values(), nugget.turn))

    def change(data) -> Done:
        stored = edits.save_with_score(edits.update_nugget, nugget, actor=request.user,
                                       expected_version=data["version"], start_word=data["start"],
                                       end_word=data["end"]).score
        return Done(nugget_touched(nugget), nugget.pk, "Nugget moved.", stored=stored)

    return _edit(request, assignment, form, change, selected_id=nugget.pk, bound={"span": form})


@login_required
@require_POST
def delete_nugget(request: HttpRequest, conversation_id: int, nugget_id: int) -> HttpResponse:
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request.user, conversation_id, nugget_id)
    before = nugget_touched(nugget)

    def change(data) -> Done:
        stored = edits.save_with_score(edits.delete_nugget, nugget, actor=request.user,
                                       expected_version=data["version"]).score
        return Done(before, None, "Nugget deleted (u undoes).", stored=stored)

    return _edit(request, assignment, VersionForm(request.POST), change, selected_id=nugget.pk)


@login_required
@require_POST
def link_entity(request: HttpRequest, conversation_id: int, nugget_id: int) -> HttpResponse:
    """Point the nugget at another entity of the topic: an existing one (same URL, or picked by
    name) keeps its grade and memberships; otherwise a new entity is made from the text."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request.user, conversation_id, nugget_id)
    nugget.turn.conversation = assignment.conversation
    entities = list(Entity.objects.filter(topic=assignment.conversation.topic, annotator=request.user))
    form = EntityLinkForm(request.POST, entities=entities)
    before = (nugget.entity_id, nugget.entity.key)

    def change(data) -> Done:
        entity, stored = edits.save_with_score(edits.link_nugget, nugget, actor=request.user,
                                               expected_version=data["version"], entity=data["existing"],
                                               text=data["entity"], conversation=assignment.conversation)
        return Done(touched([nugget.turn_id], [before, (entity.pk, entity.key)]), nugget.pk,
                    f"Linked to {entity.name or entity.key}.", stored=stored)

    return _edit(request, assignment, form, change, selected_id=nugget.pk, bound={"link": form})


def _entity_of(nugget, assignment) -> Entity:
    """The nugget's entity with its topic and annotator attached (both known: no extra queries)."""
    entity = nugget.entity
    entity.topic = assignment.conversation.topic
    if entity.annotator_id == nugget.annotator_id:
        entity.annotator = nugget.annotator
    return entity


@login_required
@require_POST
def grade(request: HttpRequest, conversation_id: int, nugget_id: int) -> HttpResponse:
    """Grade the nugget's entity (everywhere it is mentioned in the topic)."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request.user, conversation_id, nugget_id)
    grades = list(Grade.objects.filter(campaign_id=assignment.conversation.topic.campaign_id).order_by("level"))
    form = EntityGradeForm(request.POST, grades=grades)

    def change(data) -> Done:
        stored = edits.save_with_score(edits.update_entity, _entity_of(nugget, assignment), actor=request.user,
                                       expected_version=data["version"], conversation=assignment.conversation,
                                       grade=data["grade"]).score
        return Done(entity_touched(nugget), nugget.pk, editor=EditorChange(grade=True), stored=stored)

    return _edit(request, assignment, form, change, selected_id=nugget.pk, bound={"grade": form})


@login_required
@require_POST
def entity_details(request: HttpRequest, conversation_id: int, nugget_id: int) -> HttpResponse:
    """Rename the nugget's entity or comment on it."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request.user, conversation_id, nugget_id)
    form = EntityDetailsForm(request.POST)

    def change(data) -> Done:
        stored = edits.save_with_score(edits.update_entity, _entity_of(nugget, assignment), actor=request.user,
                                       expected_version=data["version"], conversation=assignment.conversation,
                                       name=data["name"], comment=data["comment"]).score
        return Done(entity_touched(nugget), nugget.pk, "Entity saved.", editor=EditorChange(details=True),
                    stored=stored)

    return _edit(request, assignment, form, change, selected_id=nugget.pk, bound={"details": form})


@login_required
@require_POST
def membership(request: HttpRequest, conversation_id: int, nugget_id: int, attribute_set_id: int) -> HttpResponse:
    """Set the entity's membership in one attribute set: a group, a split, a vector or evidence."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request.user, conversation_id, nugget_id)
    attribute_set = attribute_set_of(assignment, attribute_set_id)
    form = MembershipForm(request.POST, attribute_set=attribute_set, prefix=f"m{attribute_set.pk}")

    def change(data) -> Done:
        stored = edits.save_with_score(edits.set_membership, _entity_of(nugget, assignment), attribute_set,
                                       actor=request.user, expected_version=data["version"],
                                       vector=data["result"], evidence=data["evidence"],
                                       conversation=assignment.conversation).score
        return Done(entity_touched(nugget), nugget.pk, editor=EditorChange(attribute_set_id=attribute_set.pk),
                    stored=stored)

    return _edit(request, assignment, form, change, selected_id=nugget.pk, bound={("membership", attribute_set.pk): form})


@login_required
@require_POST
def label_turn(request: HttpRequest, conversation_id: int, turn_id: int) -> HttpResponse:
    """o / x / - for a system turn (pressing the current label again clears it)."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    turn = turn_for_annotator(request.user, turn_id)
    if turn.conversation_id != conversation_id:
        raise Http404("No such turn in this conversation.")

    def change(data) -> Done:
        stored = edits.save_with_score(edits.set_turn_label, turn, annotator=request.user, actor=request.user,
                                       label=data["label"], expected_version=data["version"]).score
        return Done(touched([turn.pk]), _selected(request), stored=stored)

    return _edit(request, assignment, LabelForm(request.POST), change, selected_id=_selected(request))


@login_required
@require_POST
def undo(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Undo the annotator's last change in this conversation."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    try:
        done, stored = edits.save_with_score(edits.undo_last, assignment.conversation, request.user, actor=request.user)
    except edits.StaleEdit as error:
        return _stale(request, assignment, error, selected_id=_selected(request))
    message = done.description if done else "Nothing to undo."
    # what the undo put back is selected again: the next grade key grades it
    selected = (done.restored_nugget if done else None) or _selected(request)
    return respond(request, assignment, selected_id=selected, changed=bool(done), message=message,
                   level="success" if done else "info", stored=stored)
