"""The paper export's #ENTITY: lines from the entity each nugget's words name, stored when the
words were written (Nugget.text_*): written exactly where deriving it from the text again
would write them, whatever changed since."""

from __future__ import annotations

import pytest

from annotator.interchange.exports import batches, catalogue as exporting
from annotator.interchange.imports.conversations import import_files
from annotator.judgments import edits
from annotator.models import Nugget
from annotator.rules.identity import entity_key_and_name
from tests.factories import make_campaign, make_conversation, make_user
from tests.interchange.test_exporting import judged, judgments  # noqa: F401 (judged: a fixture)

pytestmark = pytest.mark.django_db

TENET = "Tenet (2020): https://www.imdb.com/title/tt6723592/"
LOOPER = "Looper (2012): https://www.imdb.com/title/tt1276104/"


@pytest.fixture
def answer(db):
    """A campaign with one conversation whose S1 names Tenet (words 0-2) then Looper (words 3-5)."""
    campaign = make_campaign()
    gold = make_user("gold")
    conversation = make_conversation(campaign, [("U", "time travel movies"), ("S", f"{TENET} {LOOPER}")],
                                     annotators=[gold])
    return campaign, gold, conversation, conversation.turns.get(position=2)


def paper(campaign) -> str:
    return "".join(exporting.stream(campaign, "paper"))


def assert_comes_back(campaign, gold) -> None:
    """Imported into another campaign, the paper export gives the same judgments."""
    copy = make_campaign(slug="copy")
    result = import_files(copy, [("export.txt", paper(campaign).encode())], annotator=gold)
    assert result.ok, result.errors
    assert judgments(copy, gold) == judgments(campaign, gold)


def entity_lines(campaign) -> list[str]:
    return [line for line in paper(campaign).splitlines() if line.startswith("#ENTITY:")]


def named_by_text(campaign) -> list[bool]:
    return [n.entity_named_by_text for c in batches.iter_conversations(campaign, named=True) for n in c.nuggets]


def test_every_write_of_a_nuggets_words_stores_the_entity_they_name(answer):
    campaign, gold, conversation, turn = answer
    nugget = edits.create_nugget(annotator=gold, actor=gold, turn=turn, start_word=0, end_word=2)
    nugget.refresh_from_db()
    assert (nugget.text_key, nugget.text_name) == entity_key_and_name(TENET)
    assert (nugget.text_start, nugget.text_end) == (0, 2)
    edits.update_nugget(nugget, actor=gold, expected_version=nugget.version, start_word=3, end_word=5)
    nugget.refresh_from_db()
    assert (nugget.text_key, nugget.text_name, nugget.text_start, nugget.text_end) == (*entity_key_and_name(LOOPER), 3, 5)


def test_an_imported_nugget_stores_the_entity_its_words_name(judged):  # noqa: F811
    campaign, _gold = judged
    nuggets = Nugget.objects.filter(turn__conversation__topic__campaign=campaign).select_related("turn")
    assert nuggets.count() > 10
    for n in nuggets:
        words = n.turn.text.split()
        assert (n.text_key, n.text_name) == entity_key_and_name(" ".join(words[n.start_word : n.end_word + 1]))
        assert (n.text_start, n.text_end) == (n.start_word, n.end_word)


def test_a_nugget_whose_entity_is_what_its_words_name_needs_no_entity_line(answer):
    campaign, gold, _conversation, turn = answer
    edits.create_nugget(annotator=gold, actor=gold, turn=turn, start_word=0, end_word=2)
    assert named_by_text(campaign) == [True]
    assert entity_lines(campaign) == []


def test_an_entity_renamed_after_its_nugget_was_marked_is_named_in_the_export_and_comes_back(answer):
    campaign, gold, _conversation, turn = answer
    nugget = edits.create_nugget(annotator=gold, actor=gold, turn=turn, start_word=0, end_word=2)
    edits.update_entity(nugget.entity, actor=gold, expected_version=nugget.entity.version, name="Tenet")
    assert named_by_text(campaign) == [False]
    assert entity_lines(campaign) == ['#ENTITY: {"key": "https://imdb.com/title/tt6723592", "name": "Tenet"}']
    assert_comes_back(campaign, gold)


def test_an_undone_move_of_a_nuggets_words_still_names_its_entity(answer):
    """The undo puts the old words back without storing what they name: the stored entity is
    then of other words (Looper's), and it is the nugget's entity. Read as if it held for the
    words now, it would leave out the #ENTITY: line, and the file would give Tenet's words the
    entity Tenet when imported."""
    campaign, gold, conversation, turn = answer
    looper = edits.create_nugget(annotator=gold, actor=gold, turn=turn, start_word=3, end_word=5).entity
    edits.delete_nugget(Nugget.objects.get(), actor=gold, expected_version=1)
    nugget = edits.create_nugget(annotator=gold, actor=gold, turn=turn, start_word=0, end_word=2, entity=looper)
    edits.update_nugget(nugget, actor=gold, expected_version=nugget.version, start_word=3, end_word=5)
    assert entity_lines(campaign) == []  # Looper's words, Looper's entity
    edits.undo_last(conversation, gold, actor=gold)
    nugget.refresh_from_db()
    assert (nugget.start_word, nugget.end_word, nugget.text_start, nugget.entity_id) == (0, 2, 3, looper.pk)
    assert named_by_text(campaign) == [False]
    assert entity_lines(campaign) == ['#ENTITY: {"key": "https://imdb.com/title/tt1276104", "name": "Looper (2012)"}']
    assert_comes_back(campaign, gold)


def test_the_paper_export_is_the_same_whether_or_not_the_words_entities_are_stored(judged):  # noqa: F811
    """The paper's Bing and Bard conversations (whole lines, #SPAN:, a URL alone under its
    title), an entity renamed, a nugget linked to another entity: the stored entities spare
    deriving most nuggets' and change no byte."""
    campaign, gold = judged
    bing = campaign.topics.get(code="M002").conversations.get(run__name="bing-trial1")
    first, second = Nugget.objects.filter(turn__conversation=bing).order_by("turn__position", "start_word")[:2]
    edits.update_entity(first.entity, actor=gold, expected_version=first.entity.version, name="BTTF")
    edits.update_nugget(second, actor=gold, expected_version=second.version, entity=first.entity)
    flags = named_by_text(campaign)
    assert flags.count(True) > 10 and flags.count(False) >= 2
    exported = paper(campaign)
    assert '"name": "BTTF"' in exported
    Nugget.objects.update(text_key=None, text_name="", text_start=None, text_end=None)
    assert named_by_text(campaign).count(True) == 0
    assert paper(campaign) == exported


def test_a_url_alone_under_its_title_is_still_named_from_the_line_above_when_its_naming_is_known():
    """Known to name (key, "") by its words, a whole-line URL under a title line still reads
    back as named by that title: the writer names the entity when its name is empty."""
    from annotator.interchange.formats import ParsedConversation, ParsedNugget, ParsedTurn, parse_paper, write_paper

    url = "https://www.imdb.com/title/tt1276104/"
    key = entity_key_and_name(url)[0]
    turns = [ParsedTurn("U", 1, None, "q"), ParsedTurn("S", 1, None, f"Looper (2012)\n{url}")]
    for name, line in (("", '#ENTITY: {"key": "https://imdb.com/title/tt1276104", "name": ""}'), ("Looper (2012)", None)):
        nugget = ParsedNugget(turn=1, start_word=2, end_word=2, text=url, entity_key=key, entity_name=name,
                              entity_named_by_text=name == "")
        written = write_paper([ParsedConversation("M002", "bing", turns, [nugget])])
        assert [x for x in written.splitlines() if x.startswith("#ENTITY:")] == ([line] if line else [])
        (back,) = parse_paper(written, "f.txt").conversations[0].nuggets
        assert (back.entity_key, back.entity_name) == (key, name)
