"""The read side of the workspace: what a page or an edit's answer shows, in a fixed number of
queries (`workbench_context`), what an edit touched and which turns that can have changed
(`Affected`, `touched`, `nugget_touched`, `affected_turns`), and the suggested nuggets
(`find_candidates`, over annotator.rules.candidates). Views call it; it knows nothing of HTTP
beyond the request's user, session and CSRF token. It defines the view-model types it fills
(`Workbench`, `Candidate`, `EntityOption`, `Urls`, `NuggetLine`) and hands them down to
annotator.workspace.conversation_html, which renders the conversation column and never calls back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.db.models import Q
from django.urls import reverse

from annotator.workspace.conversation_html import render_datalist, render_turns, table_1_html, table_1_rows_html, table_2_html
from annotator.workspace.forms import EntityDetailsForm, EntityLinkForm, EntityGradeForm, MembershipForm, NuggetSpanForm
from annotator.rules.candidates import candidate_key, candidate_lines
from annotator.judgments.guidelines import for_topic_type as guidelines_for
from annotator.models import Assignment, AttributeSet, Entity, Grade, Membership, TurnLabel
from annotator.scores.per_conversation import ConversationScore, NuggetScore, attribute_sets_of, score_conversation
from annotator.rules.vectors import format_vector
from scoring.words import span_text, tokenise, turn_offsets, word_position
from annotator.models import Nugget
from annotator.rules.citations import CITATIONS_JUDGE
from annotator.rules.identity import is_grounding_redirect

DISMISSED_SESSION_KEY = "gfrc_dismissed"


@dataclass(frozen=True)
class EntityOption:
    """An entity of the topic as the link field's options and the suggestions show it (read with values_list: no model objects)."""

    pk: int
    key: str
    name: str
    grade: str | None  # the grade's label


@dataclass
class Candidate:
    turn_id: int
    start: int
    end: int
    text: str
    known: EntityOption | None = None
    key: str | None = None  # the entity identity its text gives (cited: the cited page's)
    cited_by: int | None = None  # a span the system cited: that nugget of the judge `citations`
    source: str = ""  # the cited page's title
    redirect: bool = False  # the cited URL is a Google grounding redirect (the page is unknown offline)
    proposed_by: str = ""  # cited_by is a nugget of this automatic judge (Campaign.proposals_from), not a citation
    proposed_grade: str | None = None  # the grade that judge gave


@dataclass(frozen=True)
class Urls:
    create: str
    dismiss: str
    label: str  # with {} for the turn id
    nugget: str  # with {} for the nugget id
    page: str


@dataclass
class Workbench:
    score: ConversationScore
    labels: dict[int, TurnLabel]
    selected_id: int | None
    urls: Urls
    csrf_token: str
    candidates: list[Candidate] = field(default_factory=list)




def dismissed_in_session(request, conversation_id: int) -> set[str]:
    """Dismissed suggestions are kept server-side, in the annotator's session (per conversation)."""
    return set(request.session.get(DISMISSED_SESSION_KEY, {}).get(str(conversation_id), []))


def dismiss_in_session(request, conversation_id: int, turn_id: int, start: int, end: int) -> None:
    store = request.session.get(DISMISSED_SESSION_KEY, {})
    keys = set(store.get(str(conversation_id), []))
    keys.add(candidate_key(turn_id, start, end))
    store[str(conversation_id)] = sorted(keys)
    request.session[DISMISSED_SESSION_KEY] = store


def urls_for(conversation_id: int) -> Urls:
    marker = 987654321

    def pattern(name: str, **extra) -> str:
        return reverse(name, kwargs={"conversation_id": conversation_id, **extra}).replace(str(marker), "{}")

    return Urls(
        create=reverse("nugget-create", kwargs={"conversation_id": conversation_id}),
        dismiss=reverse("suggestion-dismiss", kwargs={"conversation_id": conversation_id}),
        label=pattern("turn-label", turn_id=marker),
        nugget=pattern("nugget", nugget_id=marker),
        page=reverse("conversation", kwargs={"conversation_id": conversation_id}),
    )


@dataclass(frozen=True)
class Affected:
    """What an edit touched, so that its answer re-renders only what can look different: the
    turns whose lines it changed (whole), the entities (by id) whose nuggets and suggestions
    show them (those lines only), and entity keys (for an entity that may be gone, e.g.
    after a delete)."""

    turns: frozenset[int] = frozenset()
    entities: frozenset[int] = frozenset()
    keys: frozenset[str] = frozenset()


NOTHING = Affected()


def touched(turn_ids=(), entities: tuple[tuple[int | None, str], ...] | list = ()) -> Affected:
    """What an edit touched: turns, and entities as (id, key): a deleted entity is gone by id,
    but the suggestions that name its key still show it."""
    return Affected(
        frozenset(t for t in turn_ids if t is not None),
        frozenset(pk for pk, _key in entities if pk is not None),
        frozenset(key for _pk, key in entities if key),
    )


def nugget_touched(nugget) -> Affected:
    """An edit of `nugget` (or of its entity) touched its turn and its entity."""
    return touched([nugget.turn_id], [(nugget.entity_id, nugget.entity.key)])


def entity_touched(nugget) -> Affected:
    """An edit of `nugget`'s entity (grade, name, membership) changes how its nuggets and the
    suggestions naming it look (marks, badges, Table 1 rows), not the lines of any turn."""
    return touched(entities=[(nugget.entity_id, nugget.entity.key)])


def affected_turns(bench: Workbench, turn_ids: set[int], entity_ids: set[int], keys: set[str]) -> set[int]:
    """The turns whose rendering an edit can change: the turns it touched, every turn with a
    nugget of an entity it touched (grade, name, membership and duplicate marks show there),
    and every turn with a suggestion naming such an entity ("known · grade")."""
    result = set(turn_ids)
    for n in bench.score.nuggets:
        if n.nugget.entity_id in entity_ids:
            result.add(n.nugget.turn_id)
    for c in bench.candidates:
        if (c.key is not None and c.key in keys) or (c.known is not None and c.known.pk in entity_ids):
            result.add(c.turn_id)
    return result


def affected_looks(bench: Workbench, entity_ids: set[int], keys: set[str]) -> tuple[set[int], dict[int, set[int]]]:
    """What a change of these entities can change in the column: the look of their nuggets
    (grade, name, membership and duplicate marks show on the marks and WC badges), by nugget
    id, and the suggested lines naming them ("known · grade"), turn -> first words."""
    looks = {n.nugget.pk for n in bench.score.nuggets if n.nugget.entity_id in entity_ids}
    lines: dict[int, set[int]] = {}
    for c in bench.candidates:
        if (c.key is not None and c.key in keys) or (c.known is not None and c.known.pk in entity_ids):
            lines.setdefault(c.turn_id, set()).add(c.start)
    return looks, lines




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


@dataclass(frozen=True)
class NuggetLine:
    """A row of Table 1, its figures as the paper prints them."""

    turn_id: int
    turn: str
    name: str
    wc: int
    pw: str
    gain: str | None  # None: not graded yet
    contribution: str
    duplicate: bool
    missing: str  # attribute sets without a membership, for a relevant nugget
    nugget_id: int


@dataclass(frozen=True)
class Bar:
    group: str
    achieved: str  # percent, one decimal
    target: str
    shown: str  # percent, rounded


def _gain(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value else "0"


def table_1(score: ConversationScore, turns: set[int] | None = None, nuggets: set[int] = frozenset()) -> list[NuggetLine]:
    """Table 1 of the paper, one row per nugget: turn, entity, WC, pw, g, pw*g (duplicates
    marked); with `turns`, only the nuggets of those turns and those in `nuggets`."""
    names = {t.turn.pk: f"{t.turn.role}{t.turn.number}" for t in score.turns}
    rows = []
    for n in score.nuggets:
        if turns is not None and n.nugget.turn_id not in turns and n.nugget.pk not in nuggets:
            continue
        entity = n.nugget.entity
        name = entity.name or entity.key
        rows.append(NuggetLine(
            n.nugget.turn_id, names[n.nugget.turn_id], name if len(name) <= 40 else name[:39] + "…", n.wc, f"{n.pw:.4f}",
            _gain(n.gain) if entity.grade_id is not None else None, f"{n.contribution:.4f}", n.duplicate,
            ", ".join(n.missing), n.nugget.pk,
        ))
    return rows


def table_2(score: ConversationScore, turns: set[int] | None = None) -> list[dict]:
    """Table 2 of the paper: per system turn and attribute set, achieved vs target, DistrSim;
    with `turns`, only the system turns whose block an edit of those turns can change: the
    turns themselves and, under the cumulative method (a turn's distribution pools every
    relevant nugget up to it), every system turn after the first of them."""
    views = score.system_turns
    if turns is not None:
        if score.settings.method == "cumulative":
            first = next((k for k, view in enumerate(views) if view.turn.pk in turns), len(views))
            views = views[first:]
        else:
            views = [view for view in views if view.turn.pk in turns]
    blocks = []
    for view in views:
        sets = []
        for spec in score.attribute_sets if view.scored else ():
            sim = view.distr_sim.get(spec.name)
            bars = [
                Bar(group, f"{100 * float(a):.1f}", f"{100 * float(q):.1f}", f"{100 * float(a):.0f}")
                for group, a, q in zip(spec.groups, view.achieved.get(spec.name, []), spec.target)
            ]
            sets.append({"name": spec.name, "sim": f"{sim:.4f}" if sim is not None else "–", "bars": bars})
        blocks.append({"pk": view.turn.pk, "name": f"S{view.turn.number}", "scored": view.scored, "sets": sets})
    return blocks


def score_panel_context(score: ConversationScore, turns: set[int] | None = None, looks: set[int] = frozenset()) -> dict:
    """What the partial score-panel shows: the scores, Table 1 and Table 2 (no queries).

    With `turns` (an edit's answer, partial score-changes), Table 1 holds only those turns'
    rows, each turn's <tbody> out of band, and the rows of the nuggets in `looks` (whose
    entity changed), each row out of band. An edit passes what it re-renders in the column
    (_turns_to_render): a row's pw follows from its WC alone, and its grade, duplicate mark,
    pw*g and missing memberships from its entity, so no other row can have changed. Table 2
    likewise holds the blocks of the system turns those can change (table_2), each out of
    band: the browser swaps what changed, not the whole table (docs/benchmarks.md).
    """
    ids = [t.turn.pk for t in score.turns]
    if turns is None:
        return {
            "score": score,
            "table_1_html": table_1_html(table_1(score), ids, empty=not score.nuggets),
            "table_2_html": table_2_html(table_2(score)),
        }
    rows = table_1(score, turns, looks)
    look_turns = {r.turn_id for r in rows if r.turn_id not in turns}
    return {
        "score": score,
        "table_1_html": table_1_html([r for r in rows if r.turn_id in turns], [i for i in ids if i in turns],
                                     empty=not score.nuggets, oob=True)
        + table_1_rows_html([r for r in rows if r.turn_id not in turns]),
        "table_2_html": table_2_html(table_2(score, turns | look_turns), oob=True),
    }


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
) -> dict:
    """Everything the workspace shows, in a fixed number of queries:
    1 attribute sets of the topic type, 2-4 score_conversation (turns; nuggets with entity and
    grade; memberships), 5 turn labels, 6 the spans the systems cited and the
    proposals of the judge the campaign shows (cited_spans), 7 the
    annotator's entities that the suggestions name (when there are suggestions), 8 the
    campaign's grades, 9 memberships of the selected nugget's entity (when one is selected).
    With `only`, the conversation column holds just the turns that edit can have changed.
    """
    user = request.user
    conversation = assignment.conversation
    topic = conversation.topic
    bound = bound or {}
    attribute_sets = attribute_sets_of(topic.topic_type_id)
    score = score_conversation(conversation, user, attribute_sets)
    labels = {label.turn_id: label for label in TurnLabel.objects.filter(turn__conversation=conversation, annotator=user)}
    grades = list(Grade.objects.filter(campaign_id=topic.campaign_id).order_by("level"))
    selected = next((n for n in score.nuggets if n.nugget.pk == selected_id), None)
    urls = urls_for(conversation.pk)
    dismissed = dismissed_in_session(request, conversation.pk)
    bench = Workbench(
        score=score,
        labels=labels,
        selected_id=selected.nugget.pk if selected else None,
        urls=urls,
        csrf_token=get_token(request),
    )
    proposer = topic.campaign.proposals_from_id
    cited = cited_spans(conversation.pk, proposer if proposer != user.pk else None) if user.get_username() != CITATIONS_JUDGE else []
    bench.candidates = find_candidates(score, score.nuggets, dismissed, topic.pk, user.pk, cited=cited)
    system_turns = [t for t in score.turns if t.turn.is_system]
    rendered, lines, looks = _turns_to_render(bench, only)
    context = {
        "assignment": assignment,
        "conversation": conversation,
        "topic": topic,
        "campaign": topic.campaign,
        "attribute_sets": attribute_sets,
        "attribute_set_rows": [
            {"set": a, "groups": [(g, round(100 * t, 1)) for g, t in zip(a.groups, a.target)]} for a in attribute_sets
        ],
        "score": score,
        "turns_html": render_turns(bench, rendered, lines, looks),
        "candidates": bench.candidates,
        "grades": grades,
        "selected": selected,
        "message": message,
        "level": level,
        "labelled": sum(1 for t in system_turns if t.turn.pk in labels),
        "system_turn_count": len(system_turns),
        "total_words": score.turns[-1].end_wc if score.turns else 0,
    }
    if not request.htmx:  # the whole page: the guidelines beside the text (one query)
        context["guidelines"] = guidelines_for(topic.campaign_id, topic.topic_type.code)
    if with_panel:
        context.update(score_panel_context(score, rendered, looks), with_panel=True)
    if selected is not None:
        context.update(_editor_context(selected, score, attribute_sets, grades, bound))
    return context


def _turns_to_render(bench: Workbench, only: Affected | None) -> tuple[set[int] | None, dict[int, set[int]], set[int]]:
    """(None, {}, set()): every turn. Else the turns `only` names, whole; of the other turns,
    the suggested lines naming its entities (turn -> first words) and the marks and badges
    of its entities' nuggets (nugget ids). The selection marks of the rest are brought up to
    date by annotate.js (syncSelection)."""
    if only is None:
        return None, {}, set()
    whole = set(only.turns)
    looks, lines = affected_looks(bench, set(only.entities), set(only.keys))
    looks = {n.nugget.pk for n in bench.score.nuggets if n.nugget.pk in looks and n.nugget.turn_id not in whole}
    return whole, {turn: starts for turn, starts in lines.items() if turn not in whole}, looks


def _editor_context(selected: NuggetScore, score: ConversationScore, attribute_sets, grades, bound) -> dict:
    nugget = selected.nugget
    entity = nugget.entity
    offset = next(t.offset for t in score.turns if t.turn.pk == nugget.turn_id)
    turn = next(t.turn for t in score.turns if t.turn.pk == nugget.turn_id)
    memberships = {m.attribute_set_id: m for m in Membership.objects.filter(entity_id=entity.pk)}
    conversation_id = turn.conversation_id
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
        url_kwargs = {"conversation_id": conversation_id, "attribute_set_id": a.pk}
        rows.append(
            MembershipRow(
                attribute_set=a,
                form=form,
                membership=membership,
                choices=_choices(a, membership.vector if membership else None),
                vector_text=format_vector(membership.vector) if membership else "",
                action=reverse("nugget-membership", kwargs={**url_kwargs, "nugget_id": nugget.pk}),
                check_url=reverse("membership-check", kwargs=url_kwargs),
                prefix=form.prefix,
            )
        )
    duplicates_of = [n for n in score.nuggets if n.nugget.entity_id == entity.pk and n.nugget.pk != nugget.pk]
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
            render_datalist(entity_rows(entity.topic_id, nugget.annotator_id), entity.pk) if _details_open(bound) else ""
        ),
        "grade_form": bound.get("grade") or EntityGradeForm(grades=grades, initial={"version": entity.version}),
        "details_form": bound.get("details")
        or EntityDetailsForm(initial={"name": entity.name, "comment": entity.comment, "version": entity.version}),
        "membership_rows": rows,
    }


@dataclass(frozen=True)
class EditorChange:
    """An edit of the selected nugget's entity that keeps the selection (a grade, a membership,
    a name or comment): its answer sends the editor's parts that can differ, not the whole
    editor: the message, the summary (g, pw*g, missing memberships), the entity's version that
    every entity form sends, and the form it saved (with the entity's head for a rename). The
    selection, the counts and the other forms stay as they are."""

    grade: bool = False
    attribute_set_id: int | None = None  # the membership form saved
    details: bool = False  # the name and comment form saved


def _details_open(bound: dict) -> bool:
    return any(bound.get(name) is not None and bound[name].errors for name in ("link", "details"))


@dataclass(frozen=True)
class CitedSpan:
    """Words a system cited a source on (a nugget of the automatic judge CITATIONS_JUDGE), or a
    nugget proposed by the automatic judge the campaign shows (Campaign.proposals_from, e.g. an
    LLM judge): `proposed_by` its name, `grade` the grade it gave."""

    nugget_id: int
    turn_id: int
    start: int
    end: int
    url: str  # the entity key: the cited page's normalised URL (a proposal: its entity's key)
    title: str
    proposed_by: str = ""  # empty: the system's own citation
    grade: str | None = None


def cited_spans(conversation_id: int, proposer_id: int | None = None) -> list[CitedSpan]:
    """The spans the systems cited in the conversation, then the nuggets of the judge whose
    proposals the campaign shows (`proposer_id`), in turn and word order (one query)."""
    whose = Q(annotator__username=CITATIONS_JUDGE)
    if proposer_id is not None:
        whose |= Q(annotator_id=proposer_id)
    rows = (
        Nugget.objects.filter(whose, turn__conversation_id=conversation_id)
        .order_by("turn__position", "start_word")
        .values_list("pk", "turn_id", "start_word", "end_word", "entity__key", "entity__name", "annotator__username",
                     "entity__grade__label")
    )
    spans = [CitedSpan(*row[:6], proposed_by="" if row[6] == CITATIONS_JUDGE else row[6], grade=row[7]) for row in rows]
    return sorted(spans, key=lambda span: span.proposed_by != "")  # the systems' citations first (a stable sort)


def find_candidates(score: ConversationScore, annotator_nuggets, dismissed: set[str], topic_id: int,
                    annotator_id: int, cited: list[CitedSpan] = ()) -> list[Candidate]:
    """The suggested nuggets the annotator did not dismiss: the spans the system cited (`cited`),
    then the lines of annotator.rules.candidates (a line on which the system cited words is not
    suggested twice); each with the annotator's entity of the topic it names, if any (one
    query, for those keys)."""
    taken: dict[int, set[int]] = {}
    for n in annotator_nuggets:
        taken.setdefault(n.nugget.turn_id, set()).update(range(n.nugget.start_word, n.nugget.end_word + 1))
    result = []
    texts = {view.turn.pk: view.turn.text for view in score.turns}
    proposed: dict[int, set[int]] = {}  # words a suggestion already holds: a proposal never overlaps a citation
    for span in cited:
        words = range(span.start, span.end + 1)
        if not taken.get(span.turn_id, set()).isdisjoint(words) or not proposed.get(span.turn_id, set()).isdisjoint(words):
            continue
        if candidate_key(span.turn_id, span.start, span.end) in dismissed or span.turn_id not in texts:
            continue
        proposed.setdefault(span.turn_id, set()).update(words)
        result.append(Candidate(span.turn_id, span.start, span.end, span_text(tokenise(texts[span.turn_id]), span.start, span.end),
                                None, span.url, cited_by=span.nugget_id, source=span.title,
                                redirect=is_grounding_redirect(span.url), proposed_by=span.proposed_by,
                                proposed_grade=span.grade))
    cited_starts: dict[int, list[int]] = {}
    for c in result:
        cited_starts.setdefault(c.turn_id, []).append(c.start)
    result += [
        Candidate(view.turn.pk, line.start, line.end, line.text, None, line.key)
        for view in score.turns if view.turn.is_system
        for line in candidate_lines(view.turn.text, taken.get(view.turn.pk, set()))
        if candidate_key(view.turn.pk, line.start, line.end) not in dismissed
        and not any(line.start <= start <= line.end for start in cited_starts.get(view.turn.pk, ()))
    ]
    keys = {c.key for c in result if c.key}
    if keys:
        known = {e.key: e for e in entity_rows(topic_id, annotator_id, keys)}
        for candidate in result:
            candidate.known = known.get(candidate.key)
    return result


def entity_rows(topic_id: int, annotator_id: int, keys: set[str] | None = None) -> list[EntityOption]:
    """The annotator's entities of the topic (or those with these keys), by name."""
    entities = Entity.objects.filter(topic_id=topic_id, annotator_id=annotator_id)
    if keys is not None:
        entities = entities.filter(key__in=sorted(keys))
    rows = (
        entities
        .order_by("name", "key")
        .values_list("pk", "key", "name", "grade__label")
    )
    return [EntityOption(*row) for row in rows]


def words_before(turns, turn) -> int:
    """The conversation-wide position of the word before `turn`'s first (`turns`: all of them)."""
    ordered = sorted(turns, key=lambda t: t.position)
    return int(turn_offsets([t.text for t in ordered])[[t.pk for t in ordered].index(turn.pk)])


def score_panel_html(score: ConversationScore) -> str:
    """The score panel alone (partial score-panel), for pages that show it without the workspace
    (the organiser's read-only conversation)."""
    return render_to_string("annotator/conversation.html#score-panel", score_panel_context(score))
