"""What an annotator chose to see of a conversation, kept server-side in their session (per
conversation) so that a reload and an edit's answer keep it: the suggestions they dismissed,
and the branch they read of a conversation that branches. Neither is a judgment (nothing to
score, nothing to undo)."""

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


BRANCH_SESSION_KEY = "gfrc_branch"


def branch_in_session(request, conversation_id: int) -> int | None:
    """The turn id whose path the annotator reads: `?branch=` of this request (kept for the
    next), else the one kept, else None (the branch the chat showed)."""
    store = request.session.get(BRANCH_SESSION_KEY, {})
    chosen = request.GET.get("branch", "")
    if chosen.isdigit():
        store[str(conversation_id)] = int(chosen)
        request.session[BRANCH_SESSION_KEY] = store
    return store.get(str(conversation_id))
