"""Harvested conversations that branch: a chat export keeps every regenerated answer and every
edited question as a sibling of the message it replaces (ChatGPT's ``mapping``, Claude.ai's
``parent_message_uuid``). The readers give the messages as nodes, parents first; this module
makes the turns of the tree from them, by the rules `common.conversation` applies to a line:
a message not shown (system prompts, tool calls, hidden context) or empty is skipped and its
children follow its nearest shown ancestor; a message of the same role as the one it follows,
its only follower, is part of the same turn; a system message before the first user message is
dropped. A tree with one path is read by `common.conversation` itself, exactly as before.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from ..model import LoneSurrogate, ParsedCitation, ParsedConversation, ParsedTurn, canonical_text, holds_surrogate
from .common import Bad, Cite, Message, Reading, conversation, word_spans

__all__ = ["Node", "tree_conversation", "parents_first", "read_nodes"]


@dataclass
class Node:
    id: str
    parent: str | None  # the id of the node it follows; None: a root
    message: Message | None  # None: not shown
    shown: bool  # on the branch the chat showed


def parents_first(children: dict, shown: set) -> list[tuple]:
    """Every node as (node, parent), parents before children, the shown branch's first: from
    the roots (`children[None]`) down each node's `children` in the file's order."""
    order, stack, seen = [], [(root, None) for root in reversed(children.get(None, []))], set()
    while stack:
        node, parent = stack.pop()
        if node in seen:  # a node listed twice, or a loop: once
            continue
        seen.add(node)
        order.append((node, parent))
        below = sorted(children.get(node, []), key=lambda child: child not in shown)  # stable: the file's order
        stack.extend((child, node) for child in reversed(below))
    return order


def read_nodes(order: Sequence[tuple[Hashable, Hashable | None]], messages: int, message_of: Callable[[Hashable], Message | None],
               name_of: Callable[[Hashable], str], on_shown_branch: set, reading: Reading, line: int, where: str) -> list[Node]:
    """The nodes of `order` (`parents_first`'s, of `messages` messages), each message read by
    `message_of`. An unreadable message off the branch the chat showed leaves its branch out
    with a warning: the conversation the annotators judge is still whole (on the shown branch it
    refuses the file, as ever). Messages never reached from a root (parents that loop) are said."""
    nodes, left_out = [], set()
    for key, parent in order:
        if parent is not None and parent in left_out:
            left_out.add(key)
            continue
        try:
            message = message_of(key)
        except Bad as bad:
            if key in on_shown_branch:
                raise
            reading.warn(line, bad.field, f"{bad.message}: a branch not shown, left out")
            left_out.add(key)
            continue
        nodes.append(Node(name_of(key), None if parent is None else name_of(parent), message, key in on_shown_branch))
    if messages > len(order):
        reading.warn(line, where or None, f"{messages - len(order)} message(s) whose parents go round in a loop: not read")
    return nodes


def tree_conversation(nodes: Sequence[Node], reading: Reading, line: int, where: str) -> ParsedConversation | None:
    """The conversation the nodes (parents before children) hold: a line when only one path
    is shown text, else a tree (`ParsedConversation.is_tree`) with every branch."""
    kept, parent_of = _kept(nodes)
    followers: dict[str | None, list[str]] = defaultdict(list)
    for node in kept:
        followers[parent_of[node.id]].append(node.id)
    if all(len(ids) <= 1 for ids in followers.values()):
        return conversation([node.message for node in kept], reading, line, where)
    turns: list[Message] = []
    parents: list[int | None] = []
    shown: list[bool] = []
    ids: list[str] = []
    split: set[int] = set()  # turns whose run went on in several ways of its own role
    turn_of: dict[str, int] = {}
    for node in kept:
        message, up = node.message, parent_of[node.id]
        up_turn = turn_of.get(up) if up is not None else None
        if up_turn is None and message.role == "S":
            reading.warn(message.line or line, message.field, "a system message before the first user message is not a turn: dropped")
            continue
        if up_turn is not None and turns[up_turn].role == message.role:
            if len(followers[up]) == 1:
                _join(turns[up_turn], message)
                turn_of[node.id] = up_turn
                continue
            # the turn goes on in one of several ways: each way is a turn of its own, the run so
            # far and this message, a sibling of the run's turn (which stays for the other roles' followers)
            base = turns[up_turn]
            run = Message(base.role, base.text, base.field, base.line, list(base.cites))
            _join(run, message)
            split.add(up_turn)
            if node.shown:
                shown[up_turn] = False
            turn_of[node.id] = len(turns)
            turns.append(run)
            parents.append(parents[up_turn])
            shown.append(node.shown)
            ids.append(node.id)
            continue
        turn_of[node.id] = len(turns)
        turns.append(Message(message.role, message.text, message.field, message.line or line, list(message.cites)))
        parents.append(up_turn)
        shown.append(node.shown)
        ids.append(node.id)
    return _parsed(*_without_bare_runs(turns, parents, shown, ids, split), reading, line, where)


def _without_bare_runs(turns: list[Message], parents: list[int | None], shown: list[bool], ids: list[str],
                       split: set[int]) -> tuple[list[Message], list[int | None], list[bool], list[str]]:
    """Leaves out a turn whose run went on only in its own role (each way a turn of its own):
    alone, it never was a turn anybody read."""
    followed = {parent for parent in parents if parent is not None}
    keep = [i for i in range(len(turns)) if i not in split or i in followed]
    if len(keep) == len(turns):
        return turns, parents, shown, ids
    new_index = {old: new for new, old in enumerate(keep)}
    return ([turns[i] for i in keep], [None if parents[i] is None else new_index[parents[i]] for i in keep],
            [shown[i] for i in keep], [ids[i] for i in keep])


def _kept(nodes: Sequence[Node]) -> tuple[list[Node], dict[str, str | None]]:
    """The nodes with shown text, and for each the nearest such node above it (None: a root)."""
    nearest: dict[str, str | None] = {}  # node -> the nearest kept node at or above it
    kept, parent_of = [], {}
    for node in nodes:
        up = nearest.get(node.parent) if node.parent is not None else None
        if node.message is not None and node.message.text.strip():
            kept.append(node)
            parent_of[node.id] = up
            nearest[node.id] = node.id
        else:
            nearest[node.id] = up
    return kept, parent_of


def _join(turn: Message, message: Message) -> None:
    shift = len(turn.text) + 2
    turn.text += "\n\n" + message.text
    for c in message.cites:
        turn.cites.append(Cite(c.start + shift, c.end + shift, c.url, c.title, c.field, c.marker))


def _parsed(turns: list[Message], parents: list[int | None], shown: list[bool], ids: list[str], reading: Reading,
            line: int, where: str) -> ParsedConversation | None:
    if not turns:
        reading.warn(line, where or None, "a conversation with no user message: skipped")
        return None
    unwritable = [(m.line, m.field) for m in turns if holds_surrogate(m.text)] + [
        (m.line, c.field) for m in turns for c in m.cites if holds_surrogate(c.url) or holds_surrogate(c.title)]
    if unwritable:
        for at_line, field_ in unwritable:
            reading.error(at_line, field_ or None, LoneSurrogate.REASON)
        return None
    conv = ParsedConversation(topic="", run=None, source=reading.path, line=line, is_tree=True)
    counts: list[dict[str, int]] = []
    for index, (m, parent) in enumerate(zip(turns, parents)):
        before = counts[parent] if parent is not None else {"U": 0, "S": 0}
        counts.append({**before, m.role: before[m.role] + 1})
        conv.turns.append(ParsedTurn(role=m.role, number=counts[-1][m.role], label=None, text=canonical_text(m.text),
                                     line=m.line, field=m.field, id=ids[index], parent=parent, shown=shown[index]))
        for start, end, c in word_spans(m.text, m.cites, reading, m.line):
            conv.citations.append(ParsedCitation(turn=index, start_word=start, end_word=end, url=c.url, title=c.title,
                                                 line=m.line, field=c.field))
    return conv
