"""Writing stored figures, in the caller's transaction: what a save changes (`store_saved`),
conversations and topics stored again from their judgments, the whole campaign re-read
(`refresh_campaign`), re-scored from its stored inputs (`rescore_campaign`) or recombined
(`recombine_alpha`). Which of these a change calls is decided in one place,
annotator.scores.stored.invalidation."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, connection, transaction

from annotator.models import Campaign, Conversation, StoredFigures
from annotator.scores.per_conversation import attribute_specs, campaign_settings
from annotator.scores.stored.figures import (
    StoredScore, attribute_sets_by_type, campaign_of, has_sets, lowest_distr_sims, rows_from_judgments, score_inputs,
    scored_as_the_panel,
)
from annotator.scores.stored.sql import (
    chunks, delete_rows, inputs_by_type, insert_rows, lock, campaign_named, update_figures,
)

__all__ = ["refresh_conversations", "store_saved", "forget_conversations", "refresh_topics", "refresh_campaign",
           "rescore_campaign", "recombine_alpha", "store_missing"]

MISSING_CHUNK = 250  # conversations a reader stores per transaction (short: SQLite's one writer)


def refresh_conversations(campaign: Campaign | int, conversation_ids: Iterable[int],
                          annotator_ids: Iterable[int] | None = None) -> int:
    """(Re)compute and store the figures of these conversations from their judgments, in the
    caller's transaction; with `annotator_ids`, only those annotators' rows (a save changes
    only its annotator's). Returns how many rows were written."""
    ids = sorted(set(conversation_ids))
    if not ids:
        return 0
    annotators = None if annotator_ids is None else sorted(set(annotator_ids) - {None})
    if annotators == []:
        return 0
    if annotators is not None and len(ids) == len(annotators) == 1:
        return 1 if store_saved(ids[0], annotators[0], campaign).score.nuggets else 0
    campaign = campaign_of(campaign)
    with transaction.atomic(savepoint=False):
        lock(ids)
        rows = rows_from_judgments(campaign, ids, annotators)
        delete_rows(ids, annotators)
        return insert_rows(campaign.pk, rows)


def store_saved(conversation_id: int, annotator_id: int, campaign: Campaign | int | None = None) -> StoredScore:
    """What a save changes: one annotator's row of one conversation, in the save's transaction,
    scored as the workspace's panel scores it (the score is returned, for the save's answer);
    written by one INSERT ... ON CONFLICT UPDATE, or deleted when the annotator has no nugget
    there. The campaign, when not given, comes with the conversation's row."""
    with transaction.atomic(savepoint=False):
        query = Conversation.objects.select_related("topic__campaign" if campaign is None else "topic")
        if connection.features.has_select_for_update:
            query = query.select_for_update(no_key=True, of=("self",))  # read and locked at once: see lock
        conversation = query.get(pk=conversation_id)
        if campaign is not None:
            conversation.topic.campaign = campaign_of(campaign)  # its settings as the caller has them
        rows, saved = scored_as_the_panel(conversation, annotator_id)
        if not rows:
            delete_rows([conversation_id], [annotator_id])
        else:
            insert_rows(conversation.topic.campaign_id, rows, replace=True)
        return saved


def forget_conversations(conversation_ids: Iterable[int]) -> None:
    """Delete the stored rows of these conversations, in the caller's transaction (a short one:
    one DELETE a chunk). Until they are stored again (`refresh_conversations`), a page that reads
    one finds no row and stores it then, so nothing reads figures of judgments that changed."""
    delete_rows(sorted(set(conversation_ids)), None)


def refresh_topics(campaign: Campaign | int, topic_ids: Iterable[int]) -> int:
    """Every conversation of these topics (an import changes entities a topic shares)."""
    campaign = campaign_of(campaign)
    topic_ids = sorted(set(topic_ids))
    ids: list[int] = []
    for chunk in chunks(topic_ids):
        ids.extend(Conversation.objects.filter(topic_id__in=chunk).values_list("pk", flat=True))
    return refresh_conversations(campaign, ids)


def refresh_campaign(campaign: Campaign | int) -> int:
    """Every conversation of the campaign, from its judgments (grades or attribute sets changed)."""
    campaign = campaign_of(campaign)
    rows = rows_from_judgments(campaign, None, None)
    with campaign_named(campaign.pk):
        StoredFigures.objects.filter(campaign_id=campaign.pk).delete()
        return insert_rows(campaign.pk, rows)


def rescore_campaign(campaign: Campaign | int) -> int:
    """Every stored row re-scored from its stored inputs under the campaign's settings and
    attribute sets (L, method, empty turns, turn weight, duplicates, targets, weights)."""
    campaign = campaign_of(campaign)
    stored = inputs_by_type(campaign)
    sets = attribute_sets_by_type(campaign)
    settings = campaign_settings(campaign)
    rows = []
    for type_id, group in stored.items():
        specs = attribute_specs(sets.get(type_id, []))
        if any(not has_sets(inputs, specs) for _pk, _c, _a, inputs in group):
            return refresh_campaign(campaign)  # an attribute set the inputs do not know
        inputs = [inputs for *_, inputs in group]
        scores = score_inputs(inputs, specs, settings)
        names = [s.name for s in specs]
        r, gf, gfrc_values, gf_m = scores.R.tolist(), scores.GF.tolist(), scores.GFRC.tolist(), scores.GF_m.tolist()
        lowest = lowest_distr_sims(inputs, scores, specs)
        rows.extend((r[i], gf[i], gfrc_values[i], dict(zip(names, gf_m[i])), lowest[i], pk)
                    for i, (pk, *_rest) in enumerate(group))
    with campaign_named(campaign.pk):
        return update_figures(rows)  # the figures only: the inputs stay as they are


def recombine_alpha(campaign: Campaign | int) -> int:
    """GFRC = alpha R + (1 - alpha) GF of every stored row, in one UPDATE."""
    campaign = campaign_of(campaign)
    alpha = float(campaign.alpha)
    with campaign_named(campaign.pk), connection.cursor() as cursor:
        table = connection.ops.quote_name(StoredFigures._meta.db_table)
        cursor.execute(f"UPDATE {table} SET gfrc = %s * r + %s * gf WHERE campaign_id = %s",
                       [alpha, 1.0 - alpha, campaign.pk])
        return cursor.rowcount


def store_missing(campaign: Campaign, conversation_ids: list[int]) -> None:
    """Conversations made before the figures were stored (or by a path that bypasses the edit
    service and the importer): store them now, once. Two readers doing it at once: the second
    finds the first's rows (the unique constraints) and keeps them."""
    for chunk in chunks(conversation_ids, MISSING_CHUNK):  # short transactions: SQLite's one writer
        try:
            with transaction.atomic():
                refresh_conversations(campaign, chunk)
        except IntegrityError:
            pass
