"""The exports' shared reader: a campaign's conversations in export order (topic code, run
name), read in batches as plain rows, each with one judge's judgments (its gold annotator, else
its first assigned annotator: annotator.scores.per_conversation.gold_annotators; or the one
``annotator`` asked for), and the chunks the text exports are sent in.

A batch is a range of topic codes (two parameters, never an IN list of ids); SQLite reads it
through indexes, so its size changes only the memory held and the wait for the first chunk;
PostgreSQL hash-joins whole tables for each range, so it reads more at once (`batch_size`; the
figures behind both sizes: docs/benchmarks.md, "Campaign pages").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from django.db import connection
from django.db.models import BooleanField, ExpressionWrapper, F, Q, Value

from annotator.interchange.formats import ParsedConversation, ParsedMembership, ParsedNugget, ParsedTurn
from annotator.models import Campaign, Conversation, Membership, Nugget, Turn, TurnLabel
from annotator.models.conversations import parent_position
from annotator.models.rows import ConversationRow, Named
from annotator.scores import per_conversation
from scoring.words import span_text, tokenise

__all__ = ["Batch", "batch_size", "conversation_batches", "conversation_rows", "in_chunks",
           "iter_conversations"]

BATCH = 2000  # conversations a batch on SQLite
POSTGRESQL_BATCH = 10_000  # on PostgreSQL, which scans whole tables a batch
LINES_PER_CHUNK = 2000  # lines of a file sent (and compressed) at once


# A nugget whose entity is the one its words name (Nugget.text_*, stored for its span as it is
# now): compared in SQL, so the paper writer does not derive every nugget's entity again.
_NAMED_BY_ITS_WORDS = ExpressionWrapper(
    Q(text_start=F("start_word"), text_end=F("end_word"), text_key=F("entity__key"), text_name=F("entity__name")),
    output_field=BooleanField(),
)


class Batch:
    """One batch of conversations with their turns and one judge's judgments each, read as
    plain rows (tuples: never a model instance, nor an object, per row)."""

    def __init__(self, campaign: Campaign, conversations: list[ConversationRow], judge: dict[int, int | None],
                 named: bool = False):
        """`conversations` come in topic order: the batch reads the rows of its range of topic
        codes (two parameters, not an IN list of ids, which Django resolves one by one) and
        keeps those of its conversations. `named`: with whether each nugget's entity is the one
        its words name (ParsedNugget.entity_named_by_text, for the paper writer)."""
        self.conversations = conversations
        wanted = {c.pk for c in conversations}
        self.judge = judge = {c.pk: judge.get(c.pk) for c in conversations}
        topics = (conversations[0].topic.code, conversations[-1].topic.code) if conversations else ("", "")
        in_range = {"topic__campaign": campaign, "topic__code__range": topics}

        def where(prefix: str) -> dict:
            return {f"{prefix}{k}": v for k, v in in_range.items()}

        # conversation -> its turns (id, conversation id, role, number, text), in order: the rows
        # come a conversation after another, each looked up once
        self.turns: dict[int, list[tuple]] = defaultdict(list)
        turn_conversation: dict[int, int] = {}
        current, kept = None, None
        for row in Turn.objects.filter(**where("conversation__")).order_by(
            "conversation_id", "position"
        ).values_list("pk", "conversation_id", "role", "number", "text"):
            if row[1] != current:
                current = row[1]
                kept = self.turns[current] if current in wanted else None
            if kept is not None:
                kept.append(row)
                turn_conversation[row[0]] = current
        # conversation -> its judge's nuggets (turn id, start, end, entity id, key, name, comment,
        # grade label or None, named by its words), in turn and word order
        self.nuggets: dict[int, list[tuple]] = defaultdict(list)
        for turn_id, annotator_id, start, end, entity_id, key, name, comment, grade_id, label, named in (
            Nugget.objects.filter(**where("turn__conversation__")).order_by("turn__position", "start_word")
            .annotate(named=_NAMED_BY_ITS_WORDS if named else Value(False))
            .values_list("turn_id", "annotator_id", "start_word", "end_word", "entity_id", "entity__key",
                         "entity__name", "entity__comment", "entity__grade_id", "entity__grade__label", "named")
        ):
            conversation_id = turn_conversation.get(turn_id)
            if conversation_id is not None and annotator_id == judge[conversation_id]:
                self.nuggets[conversation_id].append(
                    (turn_id, start, end, entity_id, key, name, comment, label if grade_id else None, named))
        self.labels: dict[int, str] = {}
        for turn_id, annotator_id, label in TurnLabel.objects.filter(**where("turn__conversation__")).values_list(
            "turn_id", "annotator_id", "label"
        ):
            conversation_id = turn_conversation.get(turn_id)
            if conversation_id is not None and annotator_id == judge[conversation_id]:
                self.labels[turn_id] = label
        # turn -> (position, follows, p, shown, key), read for conversations that branch alone
        trees = [c.pk for c in conversations if c.is_tree]
        self.tree_turns: dict[int, tuple] = {
            pk: rest for pk, *rest in Turn.objects.filter(conversation_id__in=trees).values_list(
                "pk", "position", "follows", "p", "shown", "key")} if trees else {}
        entity_ids = {n[3] for nuggets in self.nuggets.values() for n in nuggets}
        # entity -> [(attribute set name, vector, evidence)], in the sets' order
        self.memberships: dict[int, list[tuple]] = defaultdict(list)
        for entity_id, name, vector, evidence in (
            Membership.objects.filter(**where("entity__"))
            .order_by("attribute_set__position", "attribute_set__name")
            .values_list("entity_id", "attribute_set__name", "vector", "evidence")
        ):
            if entity_id in entity_ids:
                self.memberships[entity_id].append((name, vector, evidence))

    def parsed(self, conversation: ConversationRow) -> ParsedConversation:
        turns = self.turns[conversation.pk]
        labels, system = self.labels, _SYSTEM
        parsed_turns = [
            ParsedTurn(role, number, labels.get(pk) if role == system else None, text)
            for pk, _conversation, role, number, text in turns
        ]
        nuggets = []
        turn_nuggets = self.nuggets.get(conversation.pk)
        if turn_nuggets:
            index = {t[0]: i for i, t in enumerate(turns)}
            words: dict[int, list[str]] = {}  # a turn's words, split once however many nuggets it holds
            memberships = self.memberships
            for turn_id, start, end, entity_id, key, name, comment, grade, named in turn_nuggets:
                i = index[turn_id]
                turn_words = words.get(i)
                if turn_words is None:
                    turn_words = words[i] = tokenise(turns[i][4])
                nuggets.append(
                    ParsedNugget(
                        turn=i,
                        start_word=start,
                        end_word=end,
                        text=span_text(turn_words, start, end),
                        grade=grade,
                        comment=comment,
                        memberships=self._memberships(entity_id) if entity_id in memberships else {},
                        entity_key=key,
                        entity_name=name,
                        entity_named_by_text=bool(named),
                    )
                )
        parsed = ParsedConversation(
            topic=conversation.topic.code, run=conversation.run.name, turns=parsed_turns, nuggets=nuggets,
            source=conversation.source,
        )
        if conversation.is_tree:
            self._branch(parsed, turns)
        return parsed

    def _branch(self, parsed: ParsedConversation, turns: list[tuple]) -> None:
        """A conversation that branches: each parsed turn with the turn it follows, its p, whether
        it was shown and its id (a stored turn's key, else its position)."""
        stored = [self.tree_turns[t[0]] for t in turns]
        index = {position: i for i, (position, *_rest) in enumerate(stored)}
        parsed.is_tree = True
        for turn, (position, follows, p, shown, key) in zip(parsed.turns, stored):
            up = parent_position(position, follows)
            turn.parent = None if up is None else index[up]
            turn.p, turn.shown, turn.id = p, shown, key or str(position)

    def _memberships(self, entity_id: int) -> dict[str, ParsedMembership]:
        """The entity's memberships by attribute-set name; most entities have none."""
        rows = self.memberships.get(entity_id)
        if not rows:
            return {}
        return {set_name: ParsedMembership(tuple(float(v) for v in vector), evidence) for set_name, vector, evidence in rows}


_SYSTEM = str(Turn.Role.SYSTEM.value)  # a plain str to compare each turn's role with


def conversation_rows(campaign: Campaign, annotator=None) -> tuple[list[ConversationRow], dict[int, int | None]]:
    """The campaign's conversations in export order (topic code, run name) and whose judgments
    each exports: `annotator`'s, else its judge's."""
    rows = [
        ConversationRow(pk, Named(code=topic_code, topic_type_id=topic_type_id), Named(name=run_name), source, gold, tree)
        for pk, topic_code, topic_type_id, run_name, source, gold, tree in Conversation.objects.filter(topic__campaign=campaign)
        .order_by("topic__code", "run__name")
        .values_list("pk", "topic__code", "topic__topic_type_id", "run__name", "source", "gold_annotator_id", "is_tree")
    ]
    if annotator is not None:
        judge = {c.pk: annotator.pk for c in rows}
    else:
        judge = per_conversation.gold_annotator_rows(campaign, [(c.pk, c.gold_annotator_id) for c in rows])
    return rows, judge


def conversation_batches(campaign: Campaign, annotator=None, named: bool = False) -> Iterator[Batch]:
    rows, judge = conversation_rows(campaign, annotator)
    size = batch_size()
    for i in range(0, len(rows), size):
        yield Batch(campaign, rows[i : i + size], judge, named)


def batch_size() -> int:
    return POSTGRESQL_BATCH if connection.vendor == "postgresql" else BATCH


def iter_conversations(campaign: Campaign, annotator=None, named: bool = False) -> Iterator[ParsedConversation]:
    """Every conversation of the campaign with its judge's judgments, as the formats hold them
    (`named`: ParsedNugget.entity_named_by_text set where it holds)."""
    for batch in conversation_batches(campaign, annotator, named):
        for conversation in batch.conversations:
            yield batch.parsed(conversation)


# The text formats are written a conversation at a time and sent 200 at a time (75-220 KB): each


def in_chunks(lines: Iterable[str], size: int = LINES_PER_CHUNK) -> Iterator[str]:
    chunk: list[str] = []
    for line in lines:
        chunk.append(line)
        if len(chunk) == size:
            yield "".join(chunk)
            chunk = []
    if chunk:
        yield "".join(chunk)
