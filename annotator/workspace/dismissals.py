"""Dismissed suggestions: kept server-side, in the annotator's session (per conversation), so
that a reload keeps them; they are not judgments (nothing to score, nothing to undo)."""

from __future__ import annotations

from annotator.rules.candidates import candidate_key

DISMISSED_SESSION_KEY = "gfrc_dismissed"


def dismissed_in_session(request, conversation_id: int) -> set[str]:
    """The keys (annotator.rules.candidates.candidate_key) of the suggestions dismissed in this conversation."""
    return set(request.session.get(DISMISSED_SESSION_KEY, {}).get(str(conversation_id), []))


def dismiss_in_session(request, conversation_id: int, turn_id: int, start: int, end: int) -> None:
    store = request.session.get(DISMISSED_SESSION_KEY, {})
    keys = set(store.get(str(conversation_id), []))
    keys.add(candidate_key(turn_id, start, end))
    store[str(conversation_id)] = sorted(keys)
    request.session[DISMISSED_SESSION_KEY] = store
