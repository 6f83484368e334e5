"""Harvested conversations in: the import's topic, trials, what each file was read as, and the
systems' citations as nuggets of the automatic judge `citations`. The readers' ParseResults are
built here as a reader returns them (topic "", run None)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.interchange.formats import ParsedCitation, ParsedConversation, ParsedTurn, ParseResult
from annotator.interchange.imports.conversations import import_parsed
from scoring.words import span_text, tokenise
from annotator.models import AnnotatorProfile, Assignment, Campaign, Conversation, Entity, Nugget, Run, is_automatic_judge
from annotator.rules.citations import CITATIONS_JUDGE
from tests.commands.helpers import load_fairweb, row_counts
from tests.factories import make_user, mark

pytestmark = pytest.mark.django_db

ANSWER = (
    "Here are two films 🎬 by Pedro Almodóvar and Agnès Varda:\n"
    "1. **Volver** (2006) is a comedy-drama. [imdb.com](https://www.imdb.com/title/tt0441909/?utm_source=openai)\n"
    "2. Cléo from 5 to 7 (1962) follows a singer through Paris."
)
VOLVER = "https://www.imdb.com/title/tt0441909/?utm_source=openai"
CLEO = "https://en.wikipedia.org/wiki/Cl%C3%A9o_from_5_to_7?utm_source=chatgpt.com"
LETTERBOXD = "https://letterboxd.com/film/cleo-from-5-to-7/"


def harvest(n: int = 2, citations=None, fmt: str = "ChatGPT export", source: str = "conversations.json") -> ParseResult:
    """n conversations of two user turns; the second system turn cites Volver and (twice) Cléo."""
    conversations = []
    for i in range(n):
        turns = [
            ParsedTurn("U", 1, None, f"films by Spanish directors please {i}", line=1),
            ParsedTurn("S", 1, None, "Which decade? 😀", line=1),
            ParsedTurn("U", 2, None, "Any decade, with sources.", line=1),
            ParsedTurn("S", 2, None, ANSWER, line=1),
        ]
        cited = citations if citations is not None else [
            ParsedCitation(3, 12, 17, VOLVER, "Volver (2006) - IMDb", line=1, field=f"[{i}].mapping.a.message.metadata.content_references[0]"),
            ParsedCitation(3, 19, 29, CLEO, "Cléo from 5 to 7 - Wikipedia", line=1, field=f"[{i}].citations[1]"),
            ParsedCitation(3, 19, 29, LETTERBOXD, "Letterboxd", line=1, field=f"[{i}].citations[2]"),
        ]
        conversations.append(ParsedConversation(topic="", run=None, turns=turns, citations=list(cited), source=source, line=1))
    return ParseResult(conversations=conversations, format_name=fmt)


@pytest.fixture
def campaign(db):
    load_fairweb()
    return Campaign.objects.get(slug="fairweb1")


def test_a_harvest_takes_the_topic_given_to_the_import_and_says_what_it_read(campaign):
    result = import_parsed(campaign, [("conversations.json", harvest(1))], run="chatgpt", topic="M003")
    assert result.ok, result.errors
    assert result.read == ["conversations.json: read as ChatGPT export: 1 conversation, 3 citations"]
    conversation = Conversation.objects.get()
    assert (conversation.topic.code, conversation.run.name) == ("M003", "chatgpt")
    assert "2 cited span(s) proposed as nuggets of the automatic judge citations" in result.summary()


def test_a_harvest_without_a_topic_is_refused_once_per_file_and_nothing_is_written(campaign):
    before = row_counts()
    result = import_parsed(campaign, [("conversations.json", harvest(3))], run="chatgpt")
    assert [str(e) for e in result.errors] == [
        "conversations.json:1: 3 harvested conversations without a topic: a harvest carries none, give the import one (--topic T)"]
    assert row_counts() == before


def test_files_with_topics_keep_theirs_whatever_the_import_topic(campaign):
    own = harvest(1)
    own.conversations[0].topic = "M002"
    result = import_parsed(campaign, [("m.jsonl", own)], run="bing", topic="M009")
    assert result.ok, result.errors
    assert Conversation.objects.get().topic.code == "M002"


def test_several_harvested_conversations_of_one_topic_and_run_are_its_trials_in_file_order(campaign):
    result = import_parsed(campaign, [("conversations.json", harvest(3))], run="chatgpt", topic="M003")
    assert result.ok, result.errors
    assert list(Conversation.objects.order_by("pk").values_list("run__name", flat=True)) == [
        "chatgpt-trial1", "chatgpt-trial2", "chatgpt-trial3"]
    assert list(Run.objects.filter(system="chatgpt").order_by("name").values_list("name", "trial")) == [
        ("chatgpt-trial1", 1), ("chatgpt-trial2", 2), ("chatgpt-trial3", 3)]


def test_each_cited_span_becomes_a_nugget_of_the_automatic_judge_citations_word_for_word(campaign):
    result = import_parsed(campaign, [("conversations.json", harvest(2))], run="chatgpt", topic="M003")
    assert result.ok, result.errors
    judge = get_user_model().objects.get(username=CITATIONS_JUDGE)
    assert is_automatic_judge(judge) and not judge.has_usable_password()
    assert judge.annotator_profile.description.startswith("Not a model: the systems' own citations")
    nuggets = Nugget.objects.filter(annotator=judge).select_related("turn", "entity", "entity__grade").order_by("turn__conversation", "start_word")
    seen = [(n.turn.conversation_id, str(n.turn.role) + str(n.turn.number), span_text(tokenise(n.turn.text), n.start_word, n.end_word),
             n.entity.key, n.entity.name, n.entity.grade.label) for n in nuggets]
    first, second = Conversation.objects.order_by("pk")
    volver = ("S2", "**Volver** (2006) is a comedy-drama. [imdb.com](https://www.imdb.com/title/tt0441909/?utm_source=openai)",
              "https://imdb.com/title/tt0441909", "Volver (2006) - IMDb", "L2")
    cleo = ("S2", "Cléo from 5 to 7 (1962) follows a singer through Paris.",
            "https://en.wikipedia.org/wiki/Cl%C3%A9o_from_5_to_7", "Cléo from 5 to 7 - Wikipedia", "L2")
    assert seen == [(first.pk, *volver), (first.pk, *cleo), (second.pk, *volver), (second.pk, *cleo)]
    assert Entity.objects.filter(annotator=judge).count() == 2  # one entity per topic and URL
    assert set(Assignment.objects.filter(annotator=judge).values_list("conversation_id", flat=True)) == {first.pk, second.pk}
    assert result.citations == 4


def test_of_several_sources_on_the_same_words_the_first_judged_in_the_topic_is_proposed(campaign):
    gold = make_user("gold1")
    import_parsed(campaign, [("first.json", harvest(1, citations=[]))], run="gemini", topic="M003", annotator=gold)
    judged = Conversation.objects.get()
    turn_text = judged.turns.get(position=4).text
    assert turn_text == ANSWER
    nugget = mark(judged, gold, 4, 19, 29, grade="L1")
    edits_entity_key = "https://letterboxd.com/film/cleo-from-5-to-7"
    Entity.objects.filter(pk=nugget.entity_id).update(key=edits_entity_key)  # the gold linked the words to Letterboxd
    result = import_parsed(campaign, [("conversations.json", harvest(1))], run="chatgpt", topic="M003")
    assert result.ok, result.errors
    keys = list(Nugget.objects.filter(annotator__username=CITATIONS_JUDGE).order_by("start_word").values_list("entity__key", flat=True))
    assert keys == ["https://imdb.com/title/tt0441909", edits_entity_key]


def test_overlapping_cited_spans_give_one_proposal_and_a_warning(campaign):
    cited = [ParsedCitation(3, 11, 17, VOLVER, line=4, field="c[0]"), ParsedCitation(3, 15, 20, LETTERBOXD, line=5, field="c[1]")]
    result = import_parsed(campaign, [("x.json", harvest(1, citations=cited, source="x.json"))], run="chatgpt", topic="M003")
    assert result.ok, result.errors
    assert [str(w) for w in result.warnings] == [
        "x.json:5: c[1]: the span cited from https://letterboxd.com/film/cleo-from-5-to-7 (words 15-20 of S2) overlaps "
        "the span cited from https://imdb.com/title/tt0441909 (words 11-17): only that one is proposed"]
    assert list(Nugget.objects.values_list("start_word", "end_word")) == [(11, 17)]


def test_a_citation_outside_the_system_turns_refuses_the_file_with_its_place(campaign):
    before = row_counts()
    cited = [ParsedCitation(3, 11, 99, VOLVER, line=7, field="[0].messages[3].annotations[0]"),
             ParsedCitation(2, 0, 1, VOLVER, line=8, field="[0].messages[2].annotations[0]")]
    result = import_parsed(campaign, [("x.json", harvest(1, citations=cited, source="x.json"))], run="chatgpt", topic="M003")
    assert [str(e) for e in result.errors] == [
        "x.json:7: [0].messages[3].annotations[0]: cited span 11-99 outside S2, which has 30 words",
        "x.json:8: [0].messages[2].annotations[0]: a citation outside the system turns: only system turns cite",
    ]
    assert row_counts() == before


def test_a_citation_of_no_web_page_is_left_out_with_a_warning(campaign):
    cited = [ParsedCitation(3, 11, 17, "file-abc123", line=3, field="f")]
    result = import_parsed(campaign, [("x.json", harvest(1, citations=cited, source="x.json"))], run="chatgpt", topic="M003")
    assert result.ok and result.citations == 0
    assert [str(w) for w in result.warnings] == ["x.json:3: f: the citation of 'file-abc123' is not an http(s) link: not proposed"]


def test_an_account_named_citations_that_is_a_person_is_not_taken_for_the_judge(campaign):
    make_user(CITATIONS_JUDGE)
    before = row_counts()
    result = import_parsed(campaign, [("x.json", harvest(1))], run="chatgpt", topic="M003")
    assert [e.message for e in result.errors] == [
        "the account 'citations' that holds the systems' citations exists and is not an automatic judge: mark it as "
        "one (console: Accounts) or rename it"]
    assert row_counts() == before


def test_a_second_harvest_reuses_the_judge_and_its_entities(campaign):
    import_parsed(campaign, [("a.json", harvest(1))], run="chatgpt", topic="M003")
    result = import_parsed(campaign, [("b.json", harvest(1))], run="perplexity", topic="M003")
    assert result.ok, result.errors
    assert AnnotatorProfile.objects.filter(user__username=CITATIONS_JUDGE).count() == 1
    assert Entity.objects.filter(annotator__username=CITATIONS_JUDGE).count() == 2
    assert Nugget.objects.filter(annotator__username=CITATIONS_JUDGE).count() == 4


def test_replacing_a_harvest_proposes_its_citations_anew(campaign):
    import_parsed(campaign, [("a.json", harvest(1))], run="chatgpt", topic="M003")
    result = import_parsed(campaign, [("a.json", harvest(1))], run="chatgpt", topic="M003", replace=True)
    assert result.ok, result.errors
    assert result.warnings == []  # the citations deleted with the old conversation are proposed again
    assert Nugget.objects.filter(annotator__username=CITATIONS_JUDGE).count() == 2


def test_the_number_of_queries_does_not_grow_with_the_number_of_citations(campaign):
    counts = []
    for n, run in [(2, "a"), (40, "b")]:
        with CaptureQueriesContext(connection) as queries:
            result = import_parsed(campaign, [(f"{run}.json", harvest(n))], run=run, topic=f"M00{len(counts) + 3}")
        assert result.ok, result.errors
        counts.append(len(queries.captured_queries))
    assert counts[1] <= counts[0] + 12, counts


def test_replacing_a_harvest_with_a_file_that_cites_nothing_says_the_proposals_went(campaign):
    import_parsed(campaign, [("a.json", harvest(1))], run="chatgpt", topic="M003")
    result = import_parsed(campaign, [("a.json", harvest(1, citations=[]))], run="chatgpt", topic="M003", replace=True)
    assert [w.message for w in result.warnings] == [
        "M003 / chatgpt: the judgments other annotators had made on the replaced conversation were deleted with it"]
    assert not Nugget.objects.exists()


def test_a_claude_ai_export_with_a_lone_surrogate_imports_nothing_and_says_where(campaign):
    import json

    from annotator.interchange.imports.conversations import import_files
    from tests.interchange.test_harvest_field_checks import _claude_export

    before = row_counts()
    data = json.dumps(_claude_export("Primer \ud800 (2004).")).encode()
    result = import_files(campaign, [("conversations.json", data)], run="claude", topic="M003")  # before: UnicodeEncodeError
    assert [str(e) for e in result.errors] == [
        "conversations.json:1: [0].chat_messages[1].content[0].text: a lone surrogate (\\ud800-\\udfff) is no text"]
    assert row_counts() == before


def test_a_cited_url_with_a_user_part_is_keyed_and_linked_by_its_real_host_with_a_warning(campaign):
    fake = "https://www.imdb.com@evil.example/title/tt0441909/"
    cited = [ParsedCitation(3, 12, 17, fake, "Volver (2006) - IMDb", line=1, field="[0].citations[0]"),
             ParsedCitation(3, 19, 29, "https://user:hunter2@letterboxd.com/film/cleo/", "Letterboxd", line=1, field="[0].citations[1]")]
    result = import_parsed(campaign, [("conversations.json", harvest(1, citations=cited))], run="chatgpt", topic="M003")
    assert result.ok, result.errors
    judge = get_user_model().objects.get(username=CITATIONS_JUDGE)
    assert sorted(Entity.objects.filter(annotator=judge).values_list("key", flat=True)) == [
        "https://evil.example/title/tt0441909", "https://letterboxd.com/film/cleo"]
    said = [str(w) for w in result.warnings]
    assert ("conversations.json:1: [0].citations[0]: the cited URL has a user part before its host (www.imdb.com@), which names "
            "no page and makes a link look like another site's: dropped, the source is https://evil.example/title/tt0441909") in said
    assert any("(user:...@)" in w for w in said) and not any("hunter2" in w for w in said)


def test_a_chatgpt_export_with_a_regenerated_answer_and_an_edited_question_imports_as_a_tree_with_every_citation(campaign):
    from annotator.interchange.imports.conversations import import_files
    from tests.interchange.harvest_helpers import DATA

    result = import_files(campaign, [("conversations.json", (DATA / "chatgpt-branches.json").read_bytes())],
                          run="chatgpt", topic="M003")
    assert result.ok, result.errors
    conversation = Conversation.objects.get()
    assert conversation.is_tree
    turns = list(conversation.turns.order_by("position").values_list("key", "follows", "shown"))
    # the shown branch (regenerated answer a1b, edited question u2e), the question before its edit, the first answer
    assert turns == [("u1", None, True), ("a1b", 1, True), ("u2e", 2, True), ("a2e", 3, True),
                     ("u2", 2, False), ("a2", 5, False), ("a1", 1, False)]  # follows: the position of the turn above
    cited = Nugget.objects.filter(annotator__username=CITATIONS_JUDGE).values_list("turn__key", flat=True)
    assert sorted(cited) == ["a1", "a1b", "a2", "a2e"]  # every branch's citations proposed on its own turn
