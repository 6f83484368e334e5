"""One rule says which entities need memberships (annotator.rules.relevance): the queue's
progress, the nugget's mark, Table 1 and the nugget export agree on an ungraded entity, on a
nonrelevant one and on a relevant one."""

from __future__ import annotations

import pytest

from annotator.interchange.exports import catalogue as exporting
from annotator.judgments.progress import progress_for
from annotator.rules.relevance import needs_every_membership
from annotator.scores.per_conversation import score_conversation
from annotator.workspace.score_panel import table_1
from tests.factories import make_campaign, make_conversation, make_user, mark

pytestmark = pytest.mark.django_db


def test_only_an_entity_graded_nonrelevant_needs_no_memberships():
    assert needs_every_membership(None) and needs_every_membership(0.5) and needs_every_membership(1.0)
    assert not needs_every_membership(0.0)


@pytest.mark.parametrize("grade, needs", [(None, True), ("L0", False), ("L1", True)])
def test_progress_the_mark_table_1_and_the_export_agree_on_what_a_nugget_still_needs(grade, needs):
    annotator = make_user("ann")
    campaign = make_campaign()
    conversation = make_conversation(campaign, [("U", "Films?"), ("S", "Primer https://www.imdb.com/title/tt0390384/")],
                                     annotators=[annotator])
    mark(conversation, annotator, 2, 1, 1, grade=grade, memberships={"RATINGS": [0, 0, 1, 0]})
    progress = progress_for(annotator, [conversation])[conversation.pk]
    (nugget,) = score_conversation(conversation, annotator).nuggets
    (row,) = table_1(score_conversation(conversation, annotator))
    export = "".join(exporting.stream(campaign, "nuggets-csv"))
    assert (progress.entities_complete == 0) is needs
    assert (nugget.missing == ("ORIGIN",)) is needs
    assert (row.missing == "ORIGIN") is needs
    assert (",ORIGIN\n" in export or ",ORIGIN\r\n" in export) is needs
