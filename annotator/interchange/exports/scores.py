"""The score exports: one row per conversation plus per-run means (CSV, JSON), and the paper's
Tables 1 and 2 for every conversation (the figures of the workspace's score panel), from the
judges' stored inputs (annotator.scores.stored.reads.judge_tables: re-scored per topic type, no
judgment re-read)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator

import pandas as pd

from annotator.interchange.csvsafe import csv_text, frame_csv
from annotator.interchange.exports.batches import batch_size, conversation_rows
from annotator.models import AttributeSet, Campaign, Membership, Nugget, Turn
from annotator.models.conversations import path_names
from annotator.models.rows import ConversationRow
from annotator.rules.relevance import needs_every_membership
from annotator.rules.vectors import format_vector
from annotator.scores import campaign_tables, per_conversation
from annotator.scores.stored import invalidation, reads

__all__ = ["scores_as_exported", "iter_scores_csv", "iter_scores_json", "iter_paths_csv", "iter_score_nuggets_csv", "iter_score_turns_csv",
           "SCORE_NUGGET_COLUMNS", "SCORE_TURN_COLUMNS"]


def scores_as_exported(campaign: Campaign) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per conversation, per-run means over topics), from annotator.scores.campaign_tables."""
    table = campaign_tables.score_table(campaign)
    score_columns = campaign_tables.score_columns(table)
    means = campaign_tables.run_means(table) if len(table) else pd.DataFrame(columns=["run", "topics", *score_columns])
    table = campaign_tables.with_usernames(table)
    table = table[["topic", "run", "judge"] + score_columns]
    means = means[["run", "topics"] + [c for c in score_columns if c in means.columns]]
    return table, means


def iter_scores_csv(campaign: Campaign) -> Iterator[str]:
    """Conversation rows, then one row per run with topic "ALL": the run's means over topics."""
    table, means = scores_as_exported(campaign)
    yield frame_csv(table)
    if len(means):
        rows = means.drop(columns=["topics"]).assign(topic="ALL", judge="")[table.columns]
        yield frame_csv(rows, header=False)


def iter_scores_json(campaign: Campaign) -> Iterator[str]:
    table, means = scores_as_exported(campaign)
    settings = per_conversation.campaign_settings(campaign)

    def records(frame: pd.DataFrame) -> list[dict]:
        frame = frame.astype(object).where(frame.notna(), None)
        return frame.to_dict(orient="records")

    yield json.dumps(
        {
            "campaign": campaign.slug,
            "settings": {
                "L": settings.patience,
                "alpha": settings.alpha,
                "method": settings.method,
                "empty_turns": settings.empty_turns,
                "turn_weight": settings.turn_weight,
                "duplicates_count_once": settings.duplicates_count_once,
                "missing_membership": campaign.missing_membership,
                "grades": {g.label: g.gain for g in campaign.grades.all()},
            },
            "conversations": records(table),
            "runs": records(means),
        },
        indent=1,
        ensure_ascii=False,
        default=lambda o: o.item() if hasattr(o, "item") else str(o),
    )
    yield "\n"


def iter_paths_csv(campaign: Campaign) -> Iterator[str]:
    """One row per root-to-leaf path of each conversation (a linear one is one path of
    probability 1): topic, run, judge, path (its turns' ids from the first to the leaf, joined by
    ">": the ids the JSONL export writes), probability, R, GF_<set>..., GF, GFRC."""
    from django.contrib.auth import get_user_model

    rows, judge = conversation_rows(campaign)
    names = sorted({a.name for a in AttributeSet.objects.filter(topic_type__campaign=campaign)})
    columns = ["topic", "run", "judge", "path", "probability", *campaign_tables.measure_columns(names)]
    usernames = dict(get_user_model().objects.filter(pk__in={j for j in judge.values() if j is not None})
                     .values_list("pk", "username"))
    size = batch_size()

    def batches() -> Iterator[list[list]]:
        for i in range(0, len(rows), size):
            batch = rows[i : i + size]
            figures = reads.judge_paths(campaign, [(c.pk, c.topic.topic_type_id) for c in batch], judge)
            leaves = _path_ids(batch)
            yield [[c.topic.code, c.run.name, usernames.get(judge.get(c.pk), ""), leaves[c.pk](path.leaf),
                    path.probability, path.R, *(path.GF_m.get(name, float("nan")) for name in names), path.GF, path.GFRC]
                   for c in batch for path in figures.get(c.pk, [])]

    yield from _csv_chunks(columns, batches())


def _path_ids(conversations: list[ConversationRow]) -> dict[int, Callable[[int], str]]:
    """conversation id -> (index of a path's leaf among its system turns -> the path's turn ids
    from the first turn, through the leaf, on to the end of the single line that follows it)."""
    turns: dict[int, list[tuple]] = defaultdict(list)
    for row in Turn.objects.filter(conversation_id__in=[c.pk for c in conversations]).order_by(
            "conversation_id", "position").values_list("conversation_id", "position", "role", "follows", "key"):
        turns[row[0]].append(row[1:])
    return {c.pk: path_names(turns[c.pk]) for c in conversations}


# -- the paper's Tables 1 and 2 ----------------------------------------------------------------

SCORE_NUGGET_COLUMNS = [
    "topic", "run", "annotator", "turn", "start", "end", "entity_key", "entity_name", "grade",
    "wc", "pw", "g", "pw_g", "duplicate", "missing_membership",
]
SCORE_TURN_COLUMNS = [
    "topic", "run", "annotator", "turn", "end_wc", "attribute_set", "scored", "turn_weight",
    "achieved", "target", "distr_sim",
]


class _JudgedBatch:
    """One batch of conversations (in export order) with their judges' usernames and their
    judges' stored inputs scored (annotator.scores.stored.reads.judge_tables): Tables 1 and 2 of each
    without reading a turn's text or re-scoring judgments."""

    def __init__(self, campaign: Campaign, conversations: list[ConversationRow], judge: dict[int, int | None],
                 usernames: dict[int, str], memberships: bool):
        self.campaign, self.conversations, self.memberships = campaign, conversations, memberships
        self.judge = {c.pk: judge.get(c.pk) for c in conversations}
        self.usernames = usernames
        self.topics = (conversations[0].topic.code, conversations[-1].topic.code)
        self.read()

    def read(self) -> None:
        self.tables = reads.judge_tables(self.campaign, [(c.pk, c.topic.topic_type_id) for c in self.conversations],
                                          self.judge, memberships=self.memberships)

    def username(self, conversation: ConversationRow) -> str:
        return self.usernames.get(self.judge[conversation.pk], "")


def _judged_batches(campaign: Campaign, annotator=None, *, memberships: bool) -> Iterator[_JudgedBatch]:
    """The conversations in batches, their judges' stored inputs scored (with their attribute
    sets when `memberships`: Table 2; Table 1's figures need none)."""
    from django.contrib.auth import get_user_model

    rows, judge = conversation_rows(campaign, annotator)
    usernames = dict(get_user_model().objects.filter(pk__in={j for j in judge.values() if j is not None})
                     .values_list("pk", "username"))
    size = batch_size()
    for i in range(0, len(rows), size):
        yield _JudgedBatch(campaign, rows[i : i + size], judge, usernames, memberships)


def _csv_chunks(columns: list[str], rows_of_batches: Iterator[list[list]]) -> Iterator[str]:
    """A header, then one CSV chunk per batch of rows (cells made safe by annotator.interchange.csvsafe)."""
    header = csv_text([columns])
    for rows in rows_of_batches:
        yield header + csv_text(rows)
        header = ""
    if header:
        yield header


def _judged_nuggets(batch: _JudgedBatch) -> dict[int, list[tuple]]:
    """conversation id -> its judge's nuggets as plain rows (turn id, turn position, turn name,
    start, end, entity id, key, name, grade id, grade label, gain), in (turn id, start word)
    order: the order of the stored inputs' nuggets."""
    judged: dict[int, list[tuple]] = defaultdict(list)
    judge = batch.judge
    for (conversation_id, annotator_id, turn_id, position, role, number, start, end, entity_id, key, name, grade_id,
         label, gain) in Nugget.objects.filter(
            turn__conversation__topic__campaign=batch.campaign, turn__conversation__topic__code__range=batch.topics,
    ).order_by().values_list("turn__conversation_id", "annotator_id", "turn_id", "turn__position", "turn__role", "turn__number",
                  "start_word", "end_word", "entity_id", "entity__key", "entity__name", "entity__grade_id",
                  "entity__grade__label", "entity__grade__gain"):
        if conversation_id in judge and annotator_id == judge[conversation_id]:
            judged[conversation_id].append((turn_id, position, f"{role}{number}", start, end, entity_id, key, name,
                                            grade_id, label, gain))
    for nuggets in judged.values():
        nuggets.sort(key=lambda n: (n[0], n[3]))
    return judged


def _stale(batch: _JudgedBatch, judged: dict[int, list[tuple]]) -> list[int]:
    """The conversations whose stored inputs do not hold their judge's nuggets (written by a path
    that bypassed the edit service): their figures are stored again before they are exported."""
    stale = []
    for c in batch.conversations:
        nuggets, stored_nuggets = judged.get(c.pk, []), batch.tables.inputs[c.pk]["n"]
        if len(nuggets) != len(stored_nuggets) or any(n[5] != s[3] for n, s in zip(nuggets, stored_nuggets)):
            stale.append(c.pk)
    return stale


def iter_score_nuggets_csv(campaign: Campaign, annotator=None) -> Iterator[str]:
    """Table 1 for every conversation: one row per nugget, WC, pw, g, pw x g, duplicate, and the
    attribute sets a graded nugget has no membership in (counted uniform, or refused on import).
    The figures are the judges' stored inputs scored (annotator.scores.stored.reads.judge_tables)."""
    set_names: dict[int, list[tuple[int, str]]] = defaultdict(list)  # topic type -> its attribute sets, in order
    for pk, type_id, name in AttributeSet.objects.filter(topic_type__campaign=campaign).values_list(
            "pk", "topic_type_id", "name"):
        set_names[type_id].append((pk, name))

    def rows() -> Iterator[list[list]]:
        for batch in _judged_batches(campaign, annotator, memberships=False):
            judged = _judged_nuggets(batch)
            stale = _stale(batch, judged)
            if stale:
                invalidation.conversations_written(campaign, stale)
                batch.read()
            given: dict[int, set[int]] = defaultdict(set)
            for entity_id, set_id in Membership.objects.filter(
                    entity__topic__campaign=campaign, entity__topic__code__range=batch.topics,
            ).values_list("entity_id", "attribute_set_id"):
                given[entity_id].add(set_id)
            figures: dict[int, tuple] = {}  # per topic type's scores: its columns as lists, once
            out = []
            for conversation in batch.conversations:
                scores, _k, _turn, first = batch.tables.where[conversation.pk]
                if id(scores) not in figures:
                    figures[id(scores)] = (scores.pw.tolist(), scores.contribution.tolist(), scores.duplicate.tolist())
                pw, contribution, duplicate = figures[id(scores)]
                stored_nuggets = batch.tables.inputs[conversation.pk]["n"]
                nuggets = judged.get(conversation.pk, [])
                sets = set_names.get(conversation.topic.topic_type_id, [])
                topic, run, judge = conversation.topic.code, conversation.run.name, batch.username(conversation)
                for i in sorted(range(len(nuggets)), key=lambda i: (nuggets[i][1], nuggets[i][3])):
                    _turn_id, _position, turn, start, end, entity_id, key, name, grade_id, label, gain = nuggets[i]
                    missing = ""
                    if needs_every_membership(float(gain) if grade_id is not None else None):
                        has = given.get(entity_id, ())
                        missing = ";".join(set_name for pk, set_name in sets if pk not in has)
                    out.append([
                        topic, run, judge, turn, start, end, key, name, label if grade_id else "",
                        stored_nuggets[i][1], repr(pw[first + i]), repr(stored_nuggets[i][2]),
                        repr(contribution[first + i]), duplicate[first + i], missing,
                    ])
            yield out

    return _csv_chunks(SCORE_NUGGET_COLUMNS, rows())


def iter_score_turns_csv(campaign: Campaign, annotator=None) -> Iterator[str]:
    """Table 2 for every conversation: one row per system turn and attribute set, achieved
    distribution against the target, DistrSim (blank when the turn is not scored) and PW(S).
    The figures are the judges' stored inputs scored (annotator.scores.stored.reads.judge_tables)."""

    def rows() -> Iterator[list[list]]:
        targets: dict = {}  # a target is written on every row: formatted once
        for batch in _judged_batches(campaign, annotator, memberships=True):
            figures: dict[int, tuple] = {}  # per topic type's scores: its columns as lists, once
            out = []
            for conversation in batch.conversations:
                scores, _k, first, _nugget = batch.tables.where[conversation.pk]
                if id(scores) not in figures:
                    specs = scores.attribute_sets
                    for spec in specs:
                        if spec not in targets:
                            targets[spec] = format_vector(spec.target.tolist())
                    figures[id(scores)] = (scores.scored.tolist(), scores.turn_weight.tolist(),
                                           [scores.achieved[spec.name].tolist() for spec in specs],
                                           scores.distr_sim.tolist(), [(spec.name, targets[spec]) for spec in specs])
                scored, weight, achieved, distr_sim, names = figures[id(scores)]
                inputs = batch.tables.inputs[conversation.pk]
                topic, run, judge = conversation.topic.code, conversation.run.name, batch.username(conversation)
                for j, (end_wc, number) in enumerate(zip(inputs["t"], inputs["s"])):
                    row = first + j
                    turn, is_scored, turn_weight = f"S{number}", scored[row], repr(weight[row])
                    for m, (name, target) in enumerate(names):
                        out.append([
                            topic, run, judge, turn, end_wc, name, is_scored, turn_weight,
                            format_vector(achieved[m][row]) if is_scored else "",
                            target,
                            repr(distr_sim[row][m]) if is_scored else "",
                        ])
            yield out

    return _csv_chunks(SCORE_TURN_COLUMNS, rows())
