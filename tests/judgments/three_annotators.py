"""A conversation judged by three annotators who disagree in every way adjudication knows, with
another conversation of the same topic: what the adjudication tests (judgments, the effect
preview, the console page, the browser) build on."""

from __future__ import annotations

from dataclasses import dataclass

from annotator.judgments import edits
from annotator.models import Conversation
from tests.factories import make_campaign, make_conversation, make_user, mark

TEXT = ("Here are films: Interstellar (2014): https://www.imdb.com/title/tt0816692/ is great. "
        "Looper (2012): https://www.imdb.com/title/tt1276104/ is fun. "
        "Primer (2004): https://www.imdb.com/title/tt0390384/ is clever.")
# words: 0 Here 1 are 2 films: 3 Interstellar 4 (2014): 5 url 6 is 7 great. 8 Looper 9 (2012): 10 url 11 is 12 fun.
#        13 Primer 14 (2004): 15 url 16 is 17 clever.   The user turn has 3 words: S1's word k is at WC k + 4.
HIGH, MID, LOW = [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]


@dataclass
class Case:
    campaign: object
    organiser: object
    ann: object
    bob: object
    carol: object
    conversation: Conversation
    other: Conversation  # same topic, another run: judged by ann and bob alike

    @property
    def annotators(self) -> list:
        return [self.ann, self.bob, self.carol]


def three_annotators() -> Case:
    """ann, bob and carol on one conversation:
    - Interstellar (3-5): the same span; graded L2, L2, L1 and RATINGS high, high, low (carol differs);
    - Looper: ann marks 8-12, bob and carol 8-10 (ann differs); RATINGS high, low, mid (no majority);
    - Primer: only carol marks it, on 12-15, which overlaps ann's Looper (the gold copied from ann
      cannot take it);
    - S1's label: o, o, x (carol differs)."""
    organiser, ann, bob, carol = make_user("org"), make_user("ann"), make_user("bob"), make_user("carol")
    campaign = make_campaign("fw", organiser=organiser)
    conversation = make_conversation(campaign, [("U", "Time travel films?"), ("S", TEXT)], annotators=[ann, bob, carol])
    other = make_conversation(campaign, [("U", "Time travel films?"), ("S", TEXT)], run="bard-trial1", annotators=[ann, bob])
    for who, grade, ratings in ((ann, "L2", HIGH), (bob, "L2", HIGH), (carol, "L1", LOW)):
        mark(conversation, who, 2, 3, 5, grade, {"RATINGS": ratings})
    for who in (ann, bob):
        mark(other, who, 2, 3, 5, None)
    for who, end, ratings in ((ann, 12, HIGH), (bob, 10, LOW), (carol, 10, MID)):
        mark(conversation, who, 2, 8, end, "L2", {"RATINGS": ratings})
    mark(conversation, carol, 2, 12, 15, "L1")
    turn = conversation.turns.get(position=2)
    for who, label in ((ann, "o"), (bob, "o"), (carol, "x")):
        edits.set_turn_label(turn, annotator=who, actor=who, label=label, expected_version=None)
    return Case(campaign, organiser, ann, bob, carol, conversation, other)
