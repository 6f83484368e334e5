"""The history of a conversation's judgments, for its campaign's organisers: who changed what,
when, from what to what; on a page and exported as CSV or JSON.

Entity names and nugget words come from LLM output and annotators: they are data, escaped by
the templates (never |safe) and neutralised in CSV cells that a spreadsheet would run as a formula.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from annotator.access import conversation_for_organiser
from annotator.interchange.csvsafe import csv_lines
from annotator.models import AnnotationEvent, AttributeSet, Conversation, Entity, Grade, Nugget
from scoring.words import span_text, tokenise

SHOWN_FIELDS = {
    AnnotationEvent.Kind.NUGGET: ["turn", "start_word", "end_word", "entity"],
    AnnotationEvent.Kind.ENTITY: ["name", "grade", "comment", "key"],
    AnnotationEvent.Kind.MEMBERSHIP: ["attribute_set", "vector", "evidence", "entity"],
    AnnotationEvent.Kind.LABEL: ["turn", "label"],
}
FIELD_NAMES = {"start_word": "first word", "end_word": "last word", "attribute_set": "attribute set"}


@dataclass
class Change:
    field: str
    before: str
    after: str


@dataclass
class Row:
    event: AnnotationEvent
    target: str
    changes: list[Change] = field(default_factory=list)

    @property
    def summary(self) -> str:
        return "; ".join(f"{c.field}: {c.before or '(none)'} -> {c.after or '(none)'}" for c in self.changes)


def conversation_events(conversation: Conversation, *, light: bool = False) -> list[AnnotationEvent]:
    """Events of this conversation, plus topic-level edits of the entities it mentions, oldest
    first. `light`: only what choosing them needs (ids and states), for paging."""
    entity_ids = set(Nugget.objects.filter(turn__conversation=conversation).values_list("entity_id", flat=True))
    entity_ids |= set(
        AnnotationEvent.objects.filter(conversation=conversation, kind=AnnotationEvent.Kind.ENTITY).values_list(
            "object_id", flat=True
        )
    )
    events = AnnotationEvent.objects.filter(
        Q(conversation=conversation)
        | Q(
            conversation__isnull=True,
            topic_id=conversation.topic_id,
            kind__in=[AnnotationEvent.Kind.ENTITY, AnnotationEvent.Kind.MEMBERSHIP],
        )
    ).order_by("at", "id")
    if light:
        events = events.only("id", "at", "conversation_id", "kind", "object_id", "before", "after")
    else:
        events = events.select_related("actor", "annotator")

    def concerns_this_conversation(event: AnnotationEvent) -> bool:
        if event.conversation_id == conversation.pk:
            return True
        if event.kind == AnnotationEvent.Kind.ENTITY:
            return event.object_id in entity_ids
        state = event.after or event.before or {}
        return state.get("entity") in entity_ids

    return [event for event in events if concerns_this_conversation(event)]


class Names:
    """Readable names for the ids stored in events (turns, entities, grades, attribute sets)."""

    def __init__(self, conversation: Conversation, events):
        self.turns = {turn.pk: turn for turn in conversation.turns.all()}
        ids = {"entity": set(), "grade": set(), "attribute_set": set()}
        for event in events:
            if event.kind == AnnotationEvent.Kind.ENTITY:
                ids["entity"].add(event.object_id)
            for state in (event.before, event.after):
                for name in ids:
                    if isinstance(state, dict) and state.get(name) is not None:
                        ids[name].add(state[name])
        self.entities = dict(Entity.objects.filter(pk__in=ids["entity"]).values_list("pk", "name"))
        self.entity_keys = dict(Entity.objects.filter(pk__in=ids["entity"]).values_list("pk", "key"))
        self.grades = {g.pk: str(g) for g in Grade.objects.filter(pk__in=ids["grade"])}
        self.attribute_sets = {a.pk: a for a in AttributeSet.objects.filter(pk__in=ids["attribute_set"])}

    def entity(self, pk) -> str:
        if pk is None:
            return ""
        return self.entities.get(pk) or self.entity_keys.get(pk) or f"entity #{pk} (deleted)"

    def turn(self, pk) -> str:
        turn = self.turns.get(pk)
        return str(turn) if turn else f"turn #{pk}"

    def value(self, name: str, value) -> str:
        if value is None:
            return ""
        if name == "turn":
            return self.turn(value)
        if name == "entity":
            return self.entity(value)
        if name == "grade":
            return self.grades.get(value, f"grade #{value}")
        if name == "attribute_set":
            attribute_set = self.attribute_sets.get(value)
            return attribute_set.name if attribute_set else f"attribute set #{value}"
        if name in ("start_word", "end_word"):
            return str(value + 1)  # people count words from 1
        if name == "vector" and isinstance(value, list):
            return "(" + ", ".join(f"{v:g}" if isinstance(v, (int, float)) else str(v) for v in value) + ")"
        return str(value)

    def words(self, state: dict) -> str:
        turn = self.turns.get(state.get("turn"))
        if turn is None or state.get("start_word") is None:
            return ""
        text = span_text(tokenise(turn.text), state["start_word"], state["end_word"])
        return text if len(text) <= 120 else text[:117] + "..."

    def target(self, event: AnnotationEvent) -> str:
        state = event.after or event.before or {}
        kind = AnnotationEvent.Kind
        if event.kind == kind.NUGGET:
            return f"{self.turn(state.get('turn'))} words {self.value('start_word', state.get('start_word'))}-" \
                   f"{self.value('end_word', state.get('end_word'))}: \u201c{self.words(state)}\u201d"
        if event.kind == kind.ENTITY:
            return self.entity(event.object_id) if event.object_id in self.entities else (state.get("name") or state.get("key", ""))
        if event.kind == kind.MEMBERSHIP:
            return f"{self.entity(state.get('entity'))} in {self.value('attribute_set', state.get('attribute_set'))}"
        if event.kind == kind.CONVERSATION:
            return f"by an import of {state.get('source') or 'a file'}; the changes above were made on the replaced text"
        return f"label of {self.turn(state.get('turn'))}"


def describe(conversation: Conversation, events) -> list[Row]:
    names = Names(conversation, events)
    rows = []
    for event in events:
        before, after = event.before or {}, event.after or {}
        changes = []
        for name in SHOWN_FIELDS.get(event.kind, []):
            old, new = names.value(name, before.get(name)), names.value(name, after.get(name))
            if old != new:
                changes.append(Change(FIELD_NAMES.get(name, name), old, new))
        rows.append(Row(event=event, target=names.target(event), changes=changes))
    return rows


def _rows(request: HttpRequest, conversation_id: int):
    conversation = conversation_for_organiser(request.user, conversation_id)
    return conversation, describe(conversation, conversation_events(conversation))


EVENTS_PER_PAGE = 100


@login_required
@require_GET
def conversation_history(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """One page of the history (oldest first): a long history is read a page at a time, each
    page in the same few queries however many events there are."""
    conversation = conversation_for_organiser(request.user, conversation_id)
    page = Paginator(conversation_events(conversation, light=True), EVENTS_PER_PAGE).get_page(request.GET.get("page"))
    events = AnnotationEvent.objects.filter(pk__in=[event.pk for event in page]).select_related("actor", "annotator")
    rows = describe(conversation, sorted(events, key=lambda event: (event.at, event.pk)))
    template = "history/conversation.html#history-page" if request.htmx else "history/conversation.html"
    return render(request, template, {"conversation": conversation, "rows": rows, "page": page})


def _record(row: Row) -> dict:
    event = row.event
    return {
        "id": event.pk,
        "at": event.at.isoformat(),
        "actor": event.actor.get_username() if event.actor else None,
        "annotator": event.annotator.get_username(),
        "action": event.action,
        "kind": event.kind,
        "object_id": event.object_id,
        "target": row.target,
        "changes": row.summary,
        "undo_of": event.undo_of_id,
        "imported": event.imported,
        "before": event.before,
        "after": event.after,
    }


CSV_COLUMNS = [
    "id", "at", "actor", "annotator", "action", "kind", "object_id", "target", "changes", "undo_of", "imported", "before",
    "after",
]


@login_required
@require_GET
def conversation_history_csv(request: HttpRequest, conversation_id: int) -> HttpResponse:
    conversation, rows = _rows(request, conversation_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"history-conversation-{conversation.pk}.csv")
    records = (_record(row) for row in rows)
    response.writelines(csv_lines([CSV_COLUMNS, *([record[column] for column in CSV_COLUMNS] for record in records)]))
    return response


@login_required
@require_GET
def conversation_history_json(request: HttpRequest, conversation_id: int) -> HttpResponse:
    conversation, rows = _rows(request, conversation_id)
    payload = {
        "conversation": {
            "id": conversation.pk,
            "topic": conversation.topic.code,
            "run": conversation.run.name,
            "campaign": conversation.topic.campaign.slug,
        },
        "events": [_record(row) for row in rows],
    }
    response = JsonResponse(payload, encoder=DjangoJSONEncoder, json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = content_disposition_header(True, f"history-conversation-{conversation.pk}.json")
    return response
