"""The editor of the selected nugget: its text and figures, and the forms that change it (span,
link, grade, name and comment, one membership form per attribute set), ready for the
template. Reads the entity's memberships (one query) and, when the link field's suggestions
are shown inline, the topic's entities (annotator.workspace.queries)."""

from __future__ import annotations

from dataclasses import dataclass

from annotator.models import AttributeSet, Grade, Membership
from annotator.rules.vectors import format_vector
from annotator.scores.per_conversation import ConversationScore, NuggetScore
from annotator.workspace.control_urls import membership_urls
from annotator.workspace.conversation_html import render_datalist
from annotator.workspace.forms import EntityDetailsForm, EntityGradeForm, EntityLinkForm, MembershipForm, NuggetSpanForm
from annotator.workspace.queries import entity_options_of, memberships_of
from scoring.words import span_text, tokenise, word_position


@dataclass(frozen=True)
class GroupChoice:
    """A group of an attribute set in the editor: its one-group button and its split box."""

    index: int
    group: str
    percent: int  # of the entity's membership, rounded
    chosen: bool  # a share above 0
    part: bool  # a share strictly between 0 and 1


@dataclass
class MembershipRow:
    """An attribute set's membership form in the editor. Field names and URLs come ready:
    the editor is rendered with every edit, and each template lookup costs."""

    attribute_set: AttributeSet
    form: MembershipForm
    membership: Membership | None
    choices: list[GroupChoice]
    vector_text: str
    action: str  # where the form saves
    check_url: str  # the live check while typing
    prefix: str  # of the form's field names


def _choices(attribute_set: AttributeSet, vector) -> list[GroupChoice]:
    vector = vector or [0.0] * attribute_set.size
    return [
        GroupChoice(i, g, round(100 * float(v)), float(v) > 0, 0 < float(v) < 1)
        for i, (g, v) in enumerate(zip(attribute_set.groups, vector))
    ]


def editor_context(selected: NuggetScore, score: ConversationScore, attribute_sets: list[AttributeSet],
                   grades: list[Grade], bound: dict) -> dict:
    """The editor's part of the template context; `bound`: the forms an edit sent back with
    errors (by name; a membership form by ("membership", attribute set id)), shown as typed."""
    nugget = selected.nugget
    entity = nugget.entity
    offset = next(t.offset for t in score.turns if t.turn.pk == nugget.turn_id)
    turn = next(t.turn for t in score.turns if t.turn.pk == nugget.turn_id)
    duplicates_of = [n for n in score.nuggets if n.nugget.entity_id == entity.pk and n.nugget.pk != nugget.pk]
    rows = _membership_rows(nugget, turn.conversation_id, attribute_sets, bound)
    return {
        "nugget": nugget,
        "entity": entity,
        "nugget_text": span_text(tokenise(turn.text), nugget.start_word, nugget.end_word),
        "nugget_turn": turn,
        "first_wc": word_position(offset, nugget.start_word),
        "other_mentions": duplicates_of,
        "span_form": bound.get("span")
        or NuggetSpanForm(
            nugget=nugget,
            offset=offset,
            initial={"first": word_position(offset, nugget.start_word), "last": selected.wc, "version": nugget.version},
        ),
        "link_form": bound.get("link") or EntityLinkForm(entities=[], initial={"version": nugget.version}),
        # The link field's suggestions are every other entity of the topic (hundreds of options):
        # loaded when its <details> opens (entity_options), not sent with every edit; inline
        # only when the details are open because a link or details form came back with errors.
        "entity_options": (
            render_datalist(entity_options_of(entity.topic_id, nugget.annotator_id), entity.pk) if _details_open(bound) else ""
        ),
        "grade_form": bound.get("grade") or EntityGradeForm(grades=grades, initial={"version": entity.version}),
        "details_form": bound.get("details")
        or EntityDetailsForm(initial={"name": entity.name, "comment": entity.comment, "version": entity.version}),
        "membership_rows": rows,
    }


def _membership_rows(nugget, conversation_id: int, attribute_sets: list[AttributeSet], bound: dict) -> list[MembershipRow]:
    """One membership form per attribute set, with the entity's membership there (one query)."""
    entity = nugget.entity
    memberships = memberships_of(entity.pk)
    rows = []
    for a in attribute_sets:
        membership = memberships.get(a.pk)
        form = bound.get(("membership", a.pk)) or MembershipForm(
            attribute_set=a,
            initial={
                "version": entity.version,
                "vector": format_vector(membership.vector) if membership else "",
                "evidence": membership.evidence if membership else "",
            },
            prefix=f"m{a.pk}",
        )
        action, check_url = membership_urls(conversation_id, nugget.pk, a.pk)
        rows.append(
            MembershipRow(
                attribute_set=a,
                form=form,
                membership=membership,
                choices=_choices(a, membership.vector if membership else None),
                vector_text=format_vector(membership.vector) if membership else "",
                action=action,
                check_url=check_url,
                prefix=form.prefix,
            )
        )
    return rows


def _details_open(bound: dict) -> bool:
    return any(bound.get(name) is not None and bound[name].errors for name in ("link", "details"))
