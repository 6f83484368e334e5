"""Workspace edits: every change goes through annotator.annotations (the business rules).

Each view: access helper first (404 for what is not yours), then a form (the rules of what
may be typed), then one service call. Refusals of the domain (AnnotationRefused) come back as
form messages (422); edits based on an old version (StaleEdit) as 409 with the latest state.
Every answer is the refreshed workbench (see workspace.respond) with HX-Trigger
"annotations-changed" when judgments changed, so the score panel reloads itself.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotator import annotations
from annotator.access import assignment_for_annotator, turn_for_annotator
from annotator.compiled import CompiledQuery
from annotator.forms import (
    DismissForm,
    EntityDetailsForm,
    EntityLinkForm,
    GradeForm,
    LabelForm,
    MembershipForm,
    NuggetSpanForm,
    SpanForm,
    VersionForm,
)
from annotator.models import AttributeSet, Entity, Grade, Turn
from annotator.views.workspace import DISMISSED_SESSION_KEY, NOTHING, affected, nugget_in_conversation, respond
from scoring.words import word_count


def _selected(request: HttpRequest) -> int | None:
    try:
        return int(request.POST.get("selected", ""))
    except ValueError:
        return None


def _first_error(form) -> str:
    for errors in form.errors.values():
        return str(errors[0])
    return "That was not saved."


def _refused(request, assignment, form, *, selected_id, bound=None) -> HttpResponse:
    return respond(
        request, assignment, selected_id=selected_id, message=_first_error(form), level="error", status=422, bound=bound,
        only=NOTHING,  # nothing was written: no turn looks different
    )


def _stale(request, assignment, error: annotations.StaleEdit, *, selected_id) -> HttpResponse:
    return respond(request, assignment, selected_id=selected_id, message=str(error), level="error", status=409, changed=True)


_TURNS = CompiledQuery(lambda conversation: Turn.objects.filter(conversation_id=conversation), "conversation")


def _turns_of(assignment) -> dict[int, Turn]:
    conversation = assignment.conversation
    turns = {t.pk: t for t in _TURNS.objects(conversation=conversation.pk)}
    for turn in turns.values():
        turn.conversation = conversation
    return turns


@login_required
@require_POST
def create_nugget(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Mark words (a selection, a line, an accepted suggestion) as a nugget; its entity comes
    from its text: the annotator's entity of the topic with the same URL (or name), else new."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    form = SpanForm(request.POST, turns=_turns_of(assignment), annotator=request.user)
    if not form.is_valid():
        return _refused(request, assignment, form, selected_id=_selected(request))
    data = form.cleaned_data
    try:
        nugget = annotations.create_nugget(
            annotator=request.user, actor=request.user, turn=data["turn"], start_word=data["start"], end_word=data["end"]
        )
    except annotations.AnnotationRefused as error:
        form.add_error(None, str(error))
        return _refused(request, assignment, form, selected_id=_selected(request))
    return respond(request, assignment, selected_id=nugget.pk, changed=True,
                   only=affected(turns=[nugget.turn_id], entities=[nugget.entity_id], keys=[nugget.entity.key]))


@login_required
@require_POST
def dismiss_suggestion(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Dismiss a suggested nugget. Dismissals live server-side in the session (per conversation):
    they survive reloads but are not judgments (nothing to score, nothing to undo)."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    form = DismissForm(request.POST, turns=_turns_of(assignment), annotator=request.user)
    if not form.is_valid():
        return _refused(request, assignment, form, selected_id=_selected(request))
    data = form.cleaned_data
    store = request.session.get(DISMISSED_SESSION_KEY, {})
    keys = set(store.get(str(conversation_id), []))
    keys.add(f"{data['turn'].pk}:{data['start']}:{data['end']}")
    store[str(conversation_id)] = sorted(keys)
    request.session[DISMISSED_SESSION_KEY] = store
    return respond(request, assignment, selected_id=_selected(request), only=affected(turns=[data["turn"].pk]))


@login_required
@require_http_methods(["GET", "POST"])
def nugget(request: HttpRequest, conversation_id: int, nugget_id: int) -> HttpResponse:
    """GET: select the nugget (the editor shows it). POST: move it to other words of its turn."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request, conversation_id, nugget_id)
    if request.method == "GET":
        if not request.htmx:
            url = reverse("conversation", kwargs={"conversation_id": conversation_id})
            return redirect(f"{url}?nugget={nugget.pk}#editor")
        return respond(request, assignment, selected_id=nugget.pk, only=affected(turns=[nugget.turn_id]))
    offset = sum(word_count(t.text) for t in _turns_of(assignment).values() if t.position < nugget.turn.position)
    form = NuggetSpanForm(request.POST, nugget=nugget, offset=offset)
    if not form.is_valid():
        return _refused(request, assignment, form, selected_id=nugget.pk, bound={"span": form})
    try:
        annotations.update_nugget(
            nugget,
            actor=request.user,
            expected_version=form.cleaned_data["version"],
            start_word=form.cleaned_data["start"],
            end_word=form.cleaned_data["end"],
        )
    except annotations.StaleEdit as error:
        return _stale(request, assignment, error, selected_id=nugget.pk)
    except annotations.AnnotationRefused as error:
        form.add_error(None, str(error))
        return _refused(request, assignment, form, selected_id=nugget.pk, bound={"span": form})
    return respond(request, assignment, selected_id=nugget.pk, changed=True, message="Nugget moved.", level="success",
                   only=affected(turns=[nugget.turn_id], entities=[nugget.entity_id]))


@login_required
@require_POST
def delete_nugget(request: HttpRequest, conversation_id: int, nugget_id: int) -> HttpResponse:
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request, conversation_id, nugget_id)
    form = VersionForm(request.POST)
    if not form.is_valid():
        return _refused(request, assignment, form, selected_id=nugget.pk)
    touched = affected(turns=[nugget.turn_id], entities=[nugget.entity_id], keys=[nugget.entity.key])
    try:
        annotations.delete_nugget(nugget, actor=request.user, expected_version=form.cleaned_data["version"])
    except annotations.StaleEdit as error:
        return _stale(request, assignment, error, selected_id=nugget.pk)
    return respond(request, assignment, selected_id=None, changed=True, message="Nugget deleted (u undoes).", level="success",
                   only=touched)


@login_required
@require_POST
def link_entity(request: HttpRequest, conversation_id: int, nugget_id: int) -> HttpResponse:
    """Point the nugget at another entity of the topic: an existing one (same URL, or picked by
    name) keeps its grade and memberships; otherwise a new entity is made from the text."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request, conversation_id, nugget_id)
    topic = assignment.conversation.topic
    entities = list(Entity.objects.filter(topic=topic, annotator=request.user))
    form = EntityLinkForm(request.POST, entities=entities)
    if not form.is_valid():
        return _refused(request, assignment, form, selected_id=nugget.pk, bound={"link": form})
    nugget.turn.conversation = assignment.conversation
    before = (nugget.entity_id, nugget.entity.key)
    try:
        with transaction.atomic():
            entity = form.cleaned_data["existing"] or annotations.entity_for_text(
                nugget.turn, request.user, form.cleaned_data["entity"], actor=request.user,
                conversation=assignment.conversation,
            )
            annotations.update_nugget(
                nugget, actor=request.user, expected_version=form.cleaned_data["version"], entity=entity
            )
    except annotations.StaleEdit as error:
        return _stale(request, assignment, error, selected_id=nugget.pk)
    except annotations.AnnotationRefused as error:
        form.add_error(None, str(error))
        return _refused(request, assignment, form, selected_id=nugget.pk, bound={"link": form})
    return respond(
        request, assignment, selected_id=nugget.pk, changed=True,
        message=f"Linked to {entity.name or entity.key}.", level="success",
        only=affected(turns=[nugget.turn_id], entities=[before[0], entity.pk], keys=[before[1], entity.key]),
    )


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
    nugget = nugget_in_conversation(request, conversation_id, nugget_id)
    grades = list(Grade.objects.filter(campaign_id=assignment.conversation.topic.campaign_id).order_by("level"))
    form = GradeForm(request.POST, grades=grades)
    if not form.is_valid():
        return _refused(request, assignment, form, selected_id=nugget.pk, bound={"grade": form})
    try:
        annotations.update_entity(
            _entity_of(nugget, assignment), actor=request.user, expected_version=form.cleaned_data["version"],
            conversation=assignment.conversation, grade=form.cleaned_data["grade"],
        )
    except annotations.StaleEdit as error:
        return _stale(request, assignment, error, selected_id=nugget.pk)
    except annotations.AnnotationRefused as error:
        form.add_error(None, str(error))
        return _refused(request, assignment, form, selected_id=nugget.pk, bound={"grade": form})
    return respond(request, assignment, selected_id=nugget.pk, changed=True,
                   only=affected(turns=[nugget.turn_id], entities=[nugget.entity_id]))


@login_required
@require_POST
def entity_details(request: HttpRequest, conversation_id: int, nugget_id: int) -> HttpResponse:
    """Rename the nugget's entity or comment on it."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request, conversation_id, nugget_id)
    form = EntityDetailsForm(request.POST)
    if not form.is_valid():
        return _refused(request, assignment, form, selected_id=nugget.pk, bound={"details": form})
    try:
        annotations.update_entity(
            _entity_of(nugget, assignment), actor=request.user, expected_version=form.cleaned_data["version"],
            conversation=assignment.conversation, name=form.cleaned_data["name"], comment=form.cleaned_data["comment"],
        )
    except annotations.StaleEdit as error:
        return _stale(request, assignment, error, selected_id=nugget.pk)
    return respond(request, assignment, selected_id=nugget.pk, changed=True, message="Entity saved.", level="success",
                   only=affected(turns=[nugget.turn_id], entities=[nugget.entity_id]))


@login_required
@require_POST
def membership(request: HttpRequest, conversation_id: int, nugget_id: int, attribute_set_id: int) -> HttpResponse:
    """Set the entity's membership in one attribute set: a group, a split, a vector or evidence."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    nugget = nugget_in_conversation(request, conversation_id, nugget_id)
    attribute_set = AttributeSet.objects.filter(
        pk=attribute_set_id, topic_type_id=assignment.conversation.topic.topic_type_id
    ).first()
    if attribute_set is None:
        raise Http404("No such attribute set for this topic.")
    form = MembershipForm(request.POST, attribute_set=attribute_set, prefix=f"m{attribute_set.pk}")
    bound = {("membership", attribute_set.pk): form}
    if not form.is_valid():
        return _refused(request, assignment, form, selected_id=nugget.pk, bound=bound)
    try:
        annotations.set_membership(
            _entity_of(nugget, assignment), attribute_set, actor=request.user,
            expected_version=form.cleaned_data["version"], vector=form.cleaned_data["result"],
            evidence=form.cleaned_data["evidence"], conversation=assignment.conversation,
        )
    except annotations.StaleEdit as error:
        return _stale(request, assignment, error, selected_id=nugget.pk)
    except annotations.AnnotationRefused as error:
        form.add_error(None, str(error))
        return _refused(request, assignment, form, selected_id=nugget.pk, bound=bound)
    return respond(request, assignment, selected_id=nugget.pk, changed=True,
                   only=affected(turns=[nugget.turn_id], entities=[nugget.entity_id]))


@login_required
@require_POST
def label_turn(request: HttpRequest, conversation_id: int, turn_id: int) -> HttpResponse:
    """o / x / - for a system turn (pressing the current label again clears it)."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    turn = turn_for_annotator(request.user, turn_id)
    if turn.conversation_id != conversation_id:
        raise Http404("No such turn in this conversation.")
    form = LabelForm(request.POST)
    if not form.is_valid():
        return _refused(request, assignment, form, selected_id=_selected(request))
    try:
        annotations.set_turn_label(
            turn, annotator=request.user, actor=request.user, label=form.cleaned_data["label"],
            expected_version=form.cleaned_data["version"],
        )
    except annotations.StaleEdit as error:
        return _stale(request, assignment, error, selected_id=_selected(request))
    except annotations.AnnotationRefused as error:
        form.add_error(None, str(error))
        return _refused(request, assignment, form, selected_id=_selected(request))
    return respond(request, assignment, selected_id=_selected(request), changed=True, only=affected(turns=[turn.pk]))


@login_required
@require_POST
def undo(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Undo the annotator's last change in this conversation."""
    assignment = assignment_for_annotator(request.user, conversation_id)
    try:
        done = annotations.undo_last(assignment.conversation, request.user, actor=request.user)
    except annotations.StaleEdit as error:
        return _stale(request, assignment, error, selected_id=_selected(request))
    message = done.description if done else "Nothing to undo."
    return respond(request, assignment, selected_id=_selected(request), changed=bool(done), message=message,
                   level="success" if done else "info")
