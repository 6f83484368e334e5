"""Campaign-wide score tables: every conversation of a campaign scored from its gold (or from
chosen annotators), in a handful of queries per topic type, as pandas frames. What reports,
run comparison, judge comparison and exports read; the per-conversation layer is
annotator.scores.per_conversation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
from django.db.models import F

from annotator.models import Campaign, Conversation, Membership, Nugget, Topic, TopicType, Turn
from annotator.scores.per_conversation import attribute_specs, campaign_settings, gfrc_tables, gold_annotators, memberships_of
from scoring import gfrc


def gf_column(attribute_set_name: str) -> str:
    return f"GF_{attribute_set_name}"


def score_columns(table: pd.DataFrame) -> list[str]:
    """The measure columns of a score table, in the one order every table, export and page
    uses: R, GF_<attribute set>... (by name), GF, GFRC. An empty frame gives R, GF, GFRC."""
    return ["R", *sorted(c for c in table.columns if c.startswith(gf_column(""))), "GF", "GFRC"]


def topic_codes(campaign: Campaign) -> list[str]:
    return list(Topic.objects.filter(campaign=campaign).values_list("code", flat=True))


# -- campaign-wide score tables -------------------------------------------------------------



@dataclass
class ScoreTables:
    """The scores of a campaign's conversations and of their scored system turns."""

    conversations: pd.DataFrame  # see score_table
    system_turns: pd.DataFrame  # conversation, topic, run, turn ("S1"), attribute_set, distr_sim


def score_table(campaign: Campaign, whose: Mapping[int, int] | None = None) -> pd.DataFrame:
    """One row per conversation: topic, run, judge, R, GF_<attribute set>..., GF, GFRC."""
    return score_tables(campaign, whose, turns=False).conversations


def score_tables(campaign: Campaign, whose: Mapping[int, int] | None = None, *, turns: bool = True) -> ScoreTables:
    """One row per conversation (topic, run, judge, R, GF_<attribute set>..., GF, GFRC) and, with
    `turns`, one per scored system turn and attribute set (its DistrSim; else that table is empty).

    Conversations are scored per topic type (each has its own attribute sets), each type in one
    vectorised `gfrc.score` call. Rows are selected by topic type, not by lists of ids, so the
    queries stay a handful (five per topic type) and never hit SQLite's cap on parameters,
    however large the campaign.

    `whose` (conversation id -> annotator id) scores just those conversations from those
    annotators' judgments (an automatic judge against the gold); by default every conversation
    from its gold's (`gold_annotators`).
    """
    conversations = list(Conversation.objects.filter(topic__campaign=campaign).select_related("topic", "run"))
    settings = campaign_settings(campaign)
    if whose is None:
        judge_of = gold_annotators(conversations)
    else:
        conversations = [c for c in conversations if c.pk in whose]
        judge_of = {c.pk: whose[c.pk] for c in conversations}
    by_type: dict[int, list[Conversation]] = defaultdict(list)
    for conversation in conversations:
        by_type[conversation.topic.topic_type_id].append(conversation)

    frames, turn_frames = [], []
    for topic_type in TopicType.objects.filter(pk__in=by_type).prefetch_related("attribute_sets").order_by("code"):
        group = by_type[topic_type.pk]
        attribute_sets = list(topic_type.attribute_sets.all())
        ids = [c.pk for c in group]
        turns_by_conversation: dict[int, list[Turn]] = defaultdict(list)
        for turn in Turn.objects.filter(conversation__topic__topic_type=topic_type).order_by("conversation_id", "position"):
            turns_by_conversation[turn.conversation_id].append(turn)
        nuggets_by_conversation: dict[int, list[Nugget]] = defaultdict(list)
        judged_entities: set[int] = set()
        nugget_query = (
            Nugget.objects.filter(turn__conversation__topic__topic_type=topic_type)
            .select_related("entity__grade")
            .annotate(conversation_key=F("turn__conversation_id"))
        )
        membership_query = Membership.objects.filter(entity__topic__topic_type=topic_type)
        if whose is not None:  # a few annotators: read only theirs
            nugget_query = nugget_query.filter(annotator_id__in=set(judge_of.values()))
            membership_query = membership_query.filter(entity__annotator_id__in=set(judge_of.values()))
        for nugget in nugget_query:
            if nugget.annotator_id == judge_of.get(nugget.conversation_key):
                nuggets_by_conversation[nugget.conversation_key].append(nugget)
                judged_entities.add(nugget.entity_id)
        memberships = memberships_of(membership_query)
        turn_table, nugget_table, turn_views, _ = gfrc_tables(
            [turns_by_conversation[i] for i in ids],
            [nuggets_by_conversation[i] for i in ids],
            {e: memberships[e] for e in judged_entities if e in memberships},
            attribute_sets,
        )
        specs = attribute_specs(attribute_sets)
        scores = gfrc.score(turn_table, nugget_table, specs, settings, len(group))
        frame = pd.DataFrame(
            {
                "conversation": ids,
                "topic": [c.topic.code for c in group],
                "topic_type": topic_type.code,
                "run": [c.run.name for c in group],
                "judge": [judge_of[i] for i in ids],
                "R": scores.R,
            }
        )
        for m, spec in enumerate(specs):
            frame[gf_column(spec.name)] = scores.GF_m[:, m]
        frame["GF"] = scores.GF
        frame["GFRC"] = scores.GFRC
        frames.append(frame)
        if turns:
            turn_frames.append(_system_turn_frame(group, turn_views, scores, specs))
    if not frames:
        return ScoreTables(
            pd.DataFrame(columns=[*_LEADING, *score_columns(pd.DataFrame())]),
            pd.DataFrame(columns=list(_TURN_COLUMNS)),
        )
    table = pd.concat(frames, ignore_index=True)
    return ScoreTables(
        table[[*_LEADING, *score_columns(table)]].sort_values(["run", "topic"], ignore_index=True),
        pd.concat(turn_frames, ignore_index=True) if turn_frames else pd.DataFrame(columns=list(_TURN_COLUMNS)),
    )


_TURN_COLUMNS = ("conversation", "topic", "run", "turn", "attribute_set", "distr_sim")
_LEADING = ("conversation", "topic", "topic_type", "run", "judge")


def _system_turn_frame(group: Sequence[Conversation], turn_views, scores, specs) -> pd.DataFrame:
    """One row per scored system turn and attribute set (rows of `scores` follow the system
    turns of `turn_views` in order)."""
    rows = []
    row = 0
    for conversation, views in zip(group, turn_views):
        for view in views:
            if not view.turn.is_system:
                continue
            if scores.scored[row]:
                for m, spec in enumerate(specs):
                    rows.append((conversation.pk, conversation.topic.code, conversation.run.name, str(view.turn),
                                 spec.name, float(scores.distr_sim[row, m])))
            row += 1
    return pd.DataFrame(rows, columns=list(_TURN_COLUMNS))


def run_means(table: pd.DataFrame) -> pd.DataFrame:
    """Per-run means over topics of every score column (NaN-aware: a topic type without an
    attribute set does not pull that column's mean down)."""
    means = table.groupby("run")[score_columns(table)].mean()
    means.insert(0, "topics", table.groupby("run")["topic"].nunique())
    return means.reset_index()
