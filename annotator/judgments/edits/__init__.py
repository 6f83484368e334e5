"""Business rules for changing judgments: the only code that writes nuggets, entities,
memberships and turn labels on an annotator's behalf (views, the API and undo all come here).

Every change
- runs in one transaction,
- is based on a version the caller saw; if someone saved in between, `StaleEdit` is raised with
  the latest state and nothing is written (optimistic concurrency: no silent overwrite),
- is recorded as an AnnotationEvent with the state before and after, which undo replays,
- writes the stored figures of what it changed (annotator.scores.stored) before its
  transaction ends (`keeps_figures`), so that a campaign page read at once shows it.

The service is split by verb, one module each: `recording` (history events, versions, refusals),
`saving` (one transaction, the stored figures, a save's score), `spans`, `entities`, `nuggets`,
`labels`, `undo`, `whole` (a whole conversation's judgments at once). Callers come in here: the
names below are the service's whole surface.
"""

from __future__ import annotations

from annotator.judgments.edits.recording import (
    Event,
    AnnotationRefused,
    StaleEdit,
    nugget_state,
    entity_state,
    membership_state,
    label_state,
)
from annotator.judgments.edits.saving import Saved, keeps_figures, save_with_score, store_figures
from annotator.judgments.edits.spans import check_span_bounds, check_span, check_span_among, USER_TURN
from annotator.judgments.edits.entities import (
    entity_for_text,
    entity_for_key,
    update_entity,
    vector_for_evidence,
    set_membership,
)
from annotator.judgments.edits.nuggets import create_nugget, update_nugget, delete_nugget, link_nugget
from annotator.judgments.edits.labels import set_turn_label
from annotator.judgments.edits.undo import Undone, describe, last_undoable, undo_last
from annotator.judgments.edits.whole import (
    MAX_SUBMITTED_NUGGETS,
    JudgedNugget,
    JudgmentsSet,
    JudgmentsVersion,
    judgments_version,
    set_conversation_judgments,
)

__all__ = ["Event", "AnnotationRefused", "StaleEdit", "nugget_state", "entity_state", "membership_state", "label_state", "Saved", "keeps_figures", "save_with_score", "store_figures", "check_span_bounds", "check_span", "check_span_among", "USER_TURN", "entity_for_text", "entity_for_key", "update_entity", "vector_for_evidence", "set_membership", "create_nugget", "update_nugget", "delete_nugget", "link_nugget", "set_turn_label", "Undone", "describe", "last_undoable", "undo_last", "MAX_SUBMITTED_NUGGETS", "JudgedNugget", "JudgmentsSet", "JudgmentsVersion", "judgments_version", "set_conversation_judgments"]
