"""import_conversations: the paper's files in, all or nothing, every problem as file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from annotator.models import Assignment, Conversation, Entity, Membership, Nugget, Topic, Turn, TurnLabel

from .helpers import BARD_FIGURE, EXAMPLE, load_fairweb, refused, row_counts, run, write

pytestmark = pytest.mark.django_db

PAPER_WCS = [35, 39, 43, 46, 51, 91, 96, 99, 104, 107]


@pytest.fixture
def gold(db):
    load_fairweb()
    return get_user_model().objects.create_user("gold-annotator")


def import_example(*extra, run_name="bing-trial1", annotator="gold-annotator", path=EXAMPLE):
    return run("import_conversations", "--campaign", "fairweb1", "--run", run_name, "--annotator", annotator, *extra, str(path))


def scores(fmt="json"):
    out, _ = run("export_scores", "--campaign", "fairweb1", "--format", fmt)
    return json.loads(out) if fmt == "json" else out


def test_the_paper_example_imported_from_its_text_file_scores_as_in_the_paper(gold):
    out, err = import_example()
    assert out.strip() == ("M002-bing-trial1.txt: read as paper: 1 conversation\n"
                           "1 conversation(s) imported; 4 turns, 10 nuggets, 2 turn labels; "
                           "10 new and 0 updated entities, judged by gold-annotator; "
                           "1 done (nothing the campaign needs is missing).")
    assert err == ""
    (row,) = scores()["conversations"]
    assert (row["topic"], row["run"], row["judge"]) == ("M002", "bing-trial1", "gold-annotator")
    assert round(row["R"], 4) == 0.0143
    assert row["GF_RATINGS"] == pytest.approx(0.5785, abs=1e-4)  # exact 0.57842; the paper rounds per turn first
    assert round(row["GF_ORIGIN"], 4) == 0.4492


def test_export_scores_csv_has_a_row_per_conversation_and_the_run_means(gold):
    import_example()
    lines = scores("csv").splitlines()
    assert lines[0] == "topic,run,judge,R,GF_ORIGIN,GF_RATINGS,GF,GFRC"
    assert lines[1].startswith("M002,bing-trial1,gold-annotator,0.0143")
    assert lines[2].startswith("ALL,bing-trial1,,0.0143")


def test_the_import_stores_turns_nuggets_entities_memberships_labels_and_the_assignment(gold):
    import_example()
    conversation = Conversation.objects.get()
    assert (conversation.topic.code, conversation.run.name, conversation.source, conversation.gold_annotator) == (
        "M002", "bing-trial1", "M002-bing-trial1.txt", gold)
    assert list(Turn.objects.values_list("role", "number")) == [("U", 1), ("S", 1), ("U", 2), ("S", 2)]
    assert list(TurnLabel.objects.values_list("turn__number", "label", "annotator")) == [(1, "o", gold.pk), (2, "o", gold.pk)]
    nuggets = list(Nugget.objects.select_related("entity__grade", "turn").order_by("turn__position", "start_word"))
    offsets = {1: 0, 2: 17, 3: 0, 4: 0}
    offsets[3] = 17 + len(Turn.objects.get(position=2).text.split())
    offsets[4] = offsets[3] + len(Turn.objects.get(position=3).text.split())
    assert [offsets[n.turn.position] + n.end_word + 1 for n in nuggets] == PAPER_WCS
    assert [n.entity.grade.label for n in nuggets] == ["L2", "L2", "L2", "L1"] + ["L2"] * 6
    first = nuggets[0].entity
    assert (first.key, first.name, first.annotator) == ("https://imdb.com/title/tt0088763", "Back to the Future (1985)", gold)
    assert {m.attribute_set.name: (m.vector, m.evidence) for m in first.memberships.all()} == {
        "RATINGS": ([0, 0, 0, 1], "1.3M"), "ORIGIN": ([0, 1, 0, 0, 0, 0, 0, 0], "United States")}
    assert Membership.objects.count() == 20
    assert list(Assignment.objects.values_list("annotator", flat=True)) == [gold.pk]


def test_declared_word_counts_that_disagree_are_printed_as_warnings(gold, tmp_path):
    path = write(tmp_path, "M002-bing-trial1.txt", EXAMPLE.read_text().replace("wc= 35", "wc= 36").replace("wc= 107", "wc= 110"))
    out, err = run("import_conversations", "--campaign", "fairweb1", "--annotator", "gold-annotator", path)
    assert err.splitlines() == [f"warning: {path}:9: wc= 36 declared, 35 computed", f"warning: {path}:60: wc= 110 declared, 107 computed"]
    assert Conversation.objects.get().run.name == "bing-trial1"  # the run from the file name


def test_the_bard_figure_imports_with_its_hand_counts_as_warnings_and_its_wrong_urls_as_l0(gold):
    out, err = import_example(run_name="bard-trial1", path=BARD_FIGURE)
    assert err.splitlines() == [
        f"warning: {BARD_FIGURE}:15: wc= 506 declared, 66 computed",
        f"warning: {BARD_FIGURE}:33: wc= 560 declared, 123 computed",
    ]
    assert Nugget.objects.count() == 10 and Entity.objects.filter(grade__label="L0").count() == 8


def test_a_second_conversation_reuses_the_entity_of_the_same_url(gold):
    import_example()
    import_example(run_name="bard-trial1", path=BARD_FIGURE)
    bttf = Entity.objects.get(key="https://imdb.com/title/tt0088763")
    assert bttf.nuggets.count() == 2
    assert Entity.objects.count() == 10 + 8  # Bard's BttF and Interstellar are Bing's entities
    (bing, bard) = sorted(scores()["conversations"], key=lambda r: r["run"])[::-1]
    assert bard["run"] == "bard-trial1" and round(bard["GF_RATINGS"], 4) == 0.4049 and round(bard["GF_ORIGIN"], 4) == 0.4303


def test_a_second_conversation_that_judges_an_entity_differently_is_refused(gold, tmp_path):
    import_example()
    other = BARD_FIGURE.read_text().replace("#L1\nwc= 560", "#L2\nwc= 560")
    path = write(tmp_path, "M002-bard-trial1.txt", other)
    before = row_counts()
    message, err = refused("import_conversations", "--campaign", "fairweb1", "--annotator", "gold-annotator", path)
    assert f"{path}:32: entity https://imdb.com/title/tt0816692 is judged L1 in conversations already imported or annotated; this file says L2" in err
    assert message == "1 problem(s): nothing was imported"
    assert row_counts() == before


def test_one_entity_judged_two_ways_in_one_file_is_refused(gold, tmp_path):
    text = EXAMPLE.read_text().replace("12 Monkeys (1995): https://www.imdb.com/title/tt0114746/", "Back to the Future: https://www.imdb.com/title/tt0088763/")
    path = write(tmp_path, "M002-x.txt", text)
    _, err = refused("import_conversations", "--campaign", "fairweb1", path)
    assert [line for line in err.splitlines() if not line.startswith("warning:")] == [
        f"{path}:40: entity https://imdb.com/title/tt0088763: RATINGS (0,0,1,0) here but (0,0,0,1) at {path}:10 "
        "(one entity has one membership per attribute set)"
    ]


@pytest.mark.parametrize(
    "change, line, reason",
    [
        (("#RATINGS: (0,0,0,1) #1.3M", "#RATINGS: (0,0,x,1) #1.3M"), 10, "malformed vector for RATINGS: value 3: 'x' is not a number (write 0.5 or 1/2)"),
        (("#RATINGS: (0,0,0,1) #1.3M", "#RATINGS: (0,0,1/2,1/4) #1.3M"), 10, "RATINGS: vector sums to 0.75, not 1"),
        (("#RATINGS: (0,0,0,1) #1.3M", "#RATNGS: (0,0,0,1) #1.3M"), 10, "unknown attribute set RATNGS for topic type M (RATINGS, ORIGIN)"),
        (("#RATINGS: (0,0,0,1) #1.3M", "#RATINGS: (0,0,1) #1.3M"), 10, "the RATINGS vector has 3 values, expected 4 (<100, 100-10K, 10K-1M, >=1M)"),
        (("#L1\nwc= 46", "#L3\nwc= 46"), 23, "grade L3 is not a grade of campaign fairweb1 (L0, L1, L2)"),
        (("Format: movie title, iMDB URL\n", "Format: movie title, iMDB URL\n#L2\n"), 5, "nugget in a user turn (U1): only system turns hold nuggets"),
        (("### S2 o", "### S3 o"), 35, "turn header out of order: expected S2, found S3"),
        (("Looper (2012): https://www.imdb.com/title/tt1276104/\n", "Looper (2012): https://www.imdb.com/title/tt1276104/\n#SPAN: 100-101\n"),
         48, "#SPAN: 100-101 must end on the line above (words 97-99) and start in the same turn (from word 74)"),
        (("Looper (2012): https://www.imdb.com/title/tt1276104/\n", "Looper (2012): https://www.imdb.com/title/tt1276104/\n#SPAN: 96-98\n"),
         47, "this nugget overlaps the nugget at line 42 (nuggets of one annotator never overlap)"),
    ],
)
def test_a_malformed_file_is_refused_with_file_and_line_and_the_database_is_unchanged(gold, tmp_path, change, line, reason):
    import_example(run_name="earlier")
    text = EXAMPLE.read_text()
    assert change[0] in text
    path = write(tmp_path, "M002-bing-trial1.txt", text.replace(change[0], change[1], 1))
    before = row_counts()
    message, err = refused("import_conversations", "--campaign", "fairweb1", "--annotator", "gold-annotator", path)
    assert f"{path}:{line}: {reason}" in err.splitlines()
    assert message.endswith("problem(s): nothing was imported")
    assert row_counts() == before


def test_non_utf8_text_is_refused_with_its_line(gold, tmp_path):
    data = EXAMPLE.read_bytes().replace(b"Groundhog Day", b"Groundhog D\xe4y")
    path = write(tmp_path, "M002-bing-trial1.txt", data)
    before = row_counts()
    _, err = refused("import_conversations", "--campaign", "fairweb1", path)
    assert err.strip() == f"{path}:17: not UTF-8 text: invalid byte e4 at byte offset 512"
    assert row_counts() == before


def test_importing_the_same_conversation_twice_needs_replace(gold):
    import_example()
    before = row_counts()
    message, err = refused("import_conversations", "--campaign", "fairweb1", "--run", "bing-trial1", str(EXAMPLE))
    assert err.strip() == (f"{EXAMPLE}:1: conversation M002 / bing-trial1 exists already (imported from M002-bing-trial1.txt): "
                           "use --replace to replace it, or --annotator to add that annotator's judgments to it")
    assert row_counts() == before


@pytest.fixture
def judge(gold):
    return get_user_model().objects.create_user("robot")


def test_an_annotator_s_file_adds_their_judgments_to_the_conversation_already_there(gold, judge, tmp_path):
    import_example()
    conversation = Conversation.objects.get()
    theirs = write(tmp_path, "M002-bing-trial1.txt", EXAMPLE.read_text().replace("#L1\nwc= 46", "#L2\nwc= 46"))
    out, err = run("import_conversations", "--campaign", "fairweb1", "--annotator", "robot", theirs)
    assert out.strip() == ("M002-bing-trial1.txt: read as paper: 1 conversation\n"
                           "added robot's judgments to 1 conversation already there; "
                           "10 nuggets, 2 turn labels; 10 new and 0 updated entities, judged by robot; "
                           "1 done (nothing the campaign needs is missing).")
    assert err == ""
    assert Conversation.objects.get().pk == conversation.pk and Turn.objects.count() == 4
    assert Nugget.objects.filter(annotator=gold).count() == Nugget.objects.filter(annotator=judge).count() == 10
    assert Entity.objects.get(key="https://imdb.com/title/tt0816692", annotator=gold).grade.label == "L1"
    assert Entity.objects.get(key="https://imdb.com/title/tt0816692", annotator=judge).grade.label == "L2"
    assert sorted(Assignment.objects.values_list("annotator", flat=True)) == [gold.pk, judge.pk]
    assert Conversation.objects.get().gold_annotator == gold
    (row,) = scores()["conversations"]
    assert row["judge"] == "gold-annotator" and round(row["R"], 4) == 0.0143  # the gold's scores are untouched


def test_judgments_are_added_only_to_the_same_text_and_a_difference_is_refused_with_its_line(gold, judge, tmp_path):
    import_example()
    before = row_counts()
    theirs = write(tmp_path, "M002-bing-trial1.txt", EXAMPLE.read_text().replace("Can you name a few more?", "Any more?"))
    _, err = refused("import_conversations", "--campaign", "fairweb1", "--annotator", "robot", theirs)
    errors = [line for line in err.splitlines() if not line.startswith("warning: ")]  # (and the wc= now off by 4)
    assert errors == [f"{theirs}:33: U2 differs from U2 of conversation M002 / bing-trial1 already imported: "
                           "judgments are added only to the same text"]
    assert row_counts() == before


def test_an_annotator_who_judged_the_conversation_already_is_sent_to_replace(gold):
    import_example()
    before = row_counts()
    _, err = refused("import_conversations", "--campaign", "fairweb1", "--annotator", "gold-annotator", str(EXAMPLE))
    assert err.strip() == (f"{EXAMPLE}:1: gold-annotator has judged conversation M002 / bing-trial1 already: "
                           "use --replace to import it anew")
    assert row_counts() == before


def test_replace_imports_the_conversation_anew(gold, tmp_path):
    import_example()
    first = Conversation.objects.get().pk
    path = write(tmp_path, "M002-bing-trial1.txt", EXAMPLE.read_text().replace("#L1\nwc= 46", "#L2\nwc= 46"))
    out, _ = run("import_conversations", "--campaign", "fairweb1", "--annotator", "gold-annotator", "--replace", path)
    assert "1 replaced" in out
    conversation = Conversation.objects.get()
    assert conversation.pk != first and Nugget.objects.count() == 10 and Entity.objects.count() == 10
    assert Entity.objects.get(key="https://imdb.com/title/tt0816692").grade.label == "L2"
    assert list(Assignment.objects.values_list("annotator", flat=True)) == [gold.pk]


def test_every_file_is_refused_when_one_has_a_problem(gold, tmp_path):
    good = write(tmp_path, "M002-bing-trial1.txt", EXAMPLE.read_text())
    bad = write(tmp_path, "M002-bad.txt", EXAMPLE.read_text().replace("#ORIGIN: (0,1,0,0,0,0,0,0) #United States\n", "#ORIGIN: (1,1) #US\n", 1))
    before = row_counts()
    _, err = refused("import_conversations", "--campaign", "fairweb1", good, bad)
    assert err.splitlines() == [f"{bad}:11: ORIGIN: vector sums to 2, not 1"]
    assert row_counts() == before


def test_a_topic_of_a_known_type_is_created_and_an_unknown_type_is_refused(gold, tmp_path):
    y_topic = write(tmp_path, "Y001-run.txt", EXAMPLE.read_text().replace("##### M002", "##### Y001").replace("#RATINGS", "#SUBSCS"))
    _, err = refused("import_conversations", "--campaign", "fairweb1", y_topic)
    assert err.splitlines()[:2] == [f"{y_topic}:11: unknown attribute set ORIGIN for topic type Y (SUBSCS)",
                                    f"{y_topic}:16: unknown attribute set ORIGIN for topic type Y (SUBSCS)"]
    assert len(err.splitlines()) == 10 and not Topic.objects.filter(code="Y001").exists()
    text = EXAMPLE.read_text().replace("##### M002", "##### Y001").replace("#RATINGS", "#SUBSCS")
    text = "\n".join(l for l in text.splitlines() if not l.startswith("#ORIGIN")) + "\n"
    run("import_conversations", "--campaign", "fairweb1", "--run", "r", write(tmp_path, "y.txt", text))
    assert Topic.objects.get(code="Y001").topic_type.code == "Y"
    _, err = refused("import_conversations", "--campaign", "fairweb1", "--run", "r", write(tmp_path, "q.txt", text.replace("Y001", "Q001")))
    assert err.strip() == f"{tmp_path / 'q.txt'}:1: unknown topic Q001: its first letter names no topic type of campaign fairweb1 (topic types: M, R, T, Y)"


def test_without_annotator_the_judgments_belong_to_the_first_organiser_else_to_gold(gold, tmp_path):
    from annotator.models import Campaign

    run("import_conversations", "--campaign", "fairweb1", str(EXAMPLE))
    assert Conversation.objects.get().gold_annotator.username == "gold"
    organiser = get_user_model().objects.create_user("org")
    Campaign.objects.get().organisers.add(organiser)
    run("import_conversations", "--campaign", "fairweb1", "--run", "again", str(EXAMPLE))
    assert Conversation.objects.get(run__name="again").gold_annotator == organiser


def test_a_jsonl_file_is_imported_like_the_paper_file(gold, tmp_path):
    from annotator.interchange.formats import parse_paper, write_jsonl

    convs = parse_paper(EXAMPLE.read_text(), "x").conversations
    path = write(tmp_path, "bing.jsonl", write_jsonl(convs))
    run("import_conversations", "--campaign", "fairweb1", "--run", "bing-trial1", path)
    row = scores()["conversations"][0]
    assert round(row["R"], 4) == 0.0143 and round(row["GF_ORIGIN"], 4) == 0.4492


def test_jsonl_problems_name_the_line_and_the_field(gold, tmp_path):
    from annotator.interchange.formats import parse_paper, write_jsonl

    convs = parse_paper(EXAMPLE.read_text(), "x").conversations
    line = write_jsonl(convs).replace('"RATINGS"', '"RATNGS"', 1)
    path = write(tmp_path, "bing.jsonl", "\n" + line)
    _, err = refused("import_conversations", "--campaign", "fairweb1", "--run", "bing-trial1", path)
    assert err.strip() == f"{path}:2: nuggets[0].memberships.RATNGS: unknown attribute set RATNGS for topic type M (RATINGS, ORIGIN)"


def test_unknown_campaign_or_annotator_is_an_error(gold):
    assert refused("import_conversations", "--campaign", "nope", str(EXAMPLE))[0] == "no campaign 'nope' (load one with load_campaign)"
    assert refused("import_conversations", "--campaign", "fairweb1", "--annotator", "nobody", str(EXAMPLE))[0] == "no user named 'nobody'"


def test_the_topic_option_gives_harvested_conversations_their_topic_and_files_with_topics_keep_theirs(gold, tmp_path):
    from annotator.interchange.formats import parse_paper, write_jsonl

    conversation = parse_paper(EXAMPLE.read_text(), "x").conversations[0]
    conversation.nuggets, conversation.run = [], None
    jsonl = write(tmp_path, "own.jsonl", write_jsonl([conversation]))
    out, err = run("import_conversations", "--campaign", "fairweb1", "--run", "bing", "--topic", "M009", jsonl)
    assert out.splitlines()[0] == "own.jsonl: read as JSONL: 1 conversation"
    assert Conversation.objects.get().topic.code == "M002"  # the file's own


HARVESTS = Path(__file__).resolve().parents[1] / "interchange" / "data" / "harvest"


@pytest.mark.parametrize(("name", "said"), [
    ("anthropic-messages.json", "read as Anthropic Messages: 2 conversations, 5 citations"),
    ("capture.har", "read as HAR capture: 3 conversations, 3 citations"),
    ("chatgpt-conversations.json", "read as ChatGPT export: 2 conversations, 6 citations"),
    ("claude-ai-conversations.json", "read as Claude.ai export: 2 conversations, 2 citations"),
    ("gemini-grounding-log.jsonl", "read as Gemini: 2 conversations, 7 citations"),
    ("gemini-takeout-MyActivity.json", "read as Gemini Takeout: 2 conversations, 3 citations"),
    ("lmsys-wildchat.jsonl", "read as LMSYS-Chat / WildChat: 4 conversations, 1 citation"),
    ("openai-chat-completions.jsonl", "read as OpenAI Chat Completions: 2 conversations, 5 citations"),
    ("openai-responses-items.jsonl", "read as OpenAI Responses: 2 conversations, 5 citations"),
    ("openai-responses-log.jsonl", "read as OpenAI Responses: 2 conversations, 5 citations"),
    ("perplexity-log.jsonl", "read as Perplexity: 2 conversations, 8 citations"),
    ("sharegpt.json", "read as ShareGPT: 2 conversations, 3 citations"),
])
def test_each_harvest_format_is_imported_into_the_topic_given_with_its_citations_as_the_judges_nuggets(gold, name, said):
    from annotator.interchange.formats import parse_file
    from scoring.words import span_text, tokenise
    from annotator.rules.identity import normalise_url

    out, err = run("import_conversations", "--campaign", "fairweb1", "--run", "sys", "--topic", "M010", str(HARVESTS / name))
    assert out.splitlines()[0] == f"{name}: {said}"
    parsed = parse_file((HARVESTS / name).read_bytes(), name).conversations
    conversations = Conversation.objects.filter(topic__code="M010").order_by("run__trial")
    trials = [f"sys-trial{i}" for i in range(1, len(parsed) + 1)] if len(parsed) > 1 else ["sys"]  # one is no trial
    assert [c.run.name for c in conversations] == trials
    for conversation, read in zip(conversations, parsed):
        assert [t.text for t in conversation.turns.order_by("position")] == [t.text for t in read.turns]
        proposed = {(n.turn.position - 1, n.start_word, n.end_word): (span_text(tokenise(n.turn.text), n.start_word, n.end_word), n.entity.key)
                    for n in Nugget.objects.filter(turn__conversation=conversation, annotator__username="citations")
                    .select_related("turn", "entity")}
        cited = {(c.turn, c.start_word, c.end_word) for c in read.citations}
        assert set(proposed) == cited  # the readers' spans never overlap: one proposal per cited span
        for (turn, start, end), (words, key) in proposed.items():
            assert words == " ".join(read.words(turn)[start : end + 1])
            assert key in {normalise_url(c.url) for c in read.citations if (c.turn, c.start_word, c.end_word) == (turn, start, end)}
            assert "utm_" not in key


def test_a_streamed_answer_saved_alone_is_refused_with_why_and_writes_nothing(gold):
    before = row_counts()
    message, err = refused("import_conversations", "--campaign", "fairweb1", "--run", "sys", "--topic", "M010",
                           str(HARVESTS / "anthropic-stream.sse"))
    assert message == "1 problem(s): nothing was imported"
    assert "anthropic-stream.sse:1: a streamed answer alone holds no question, and the question's words count in every word position" in err
    assert row_counts() == before


def test_a_chatgpt_export_says_what_it_read_and_proposes_its_citations_without_tracking_tags(gold):
    out, _ = run("import_conversations", "--campaign", "fairweb1", "--run", "chatgpt", "--topic", "M010",
                 str(HARVESTS / "chatgpt-conversations.json"))
    assert out.splitlines()[0] == "chatgpt-conversations.json: read as ChatGPT export: 2 conversations, 6 citations"
    assert "cited span(s) proposed as nuggets of the automatic judge citations" in out.splitlines()[1]
    keys = set(Entity.objects.filter(annotator__username="citations").values_list("key", flat=True))
    assert keys and not any("utm_" in key for key in keys)


def test_a_capture_with_one_broken_call_imports_nothing_and_says_where(gold, tmp_path):
    har = json.loads((HARVESTS / "capture.har").read_text())
    har["log"]["entries"][4]["request"]["postData"]["text"] = json.dumps({"messages": [{"role": "robot", "content": "hi"}]})
    message, err = refused("import_conversations", "--campaign", "fairweb1", "--run", "sys", "--topic", "M010",
                           write(tmp_path, "capture.har", json.dumps(har)))
    assert "nothing was imported" in message
    assert "capture.har:1: log.entries[4].request.messages[0].role: unknown role 'robot' (user or assistant)" in err
    assert not Conversation.objects.exists() and not Entity.objects.exists()


def test_a_harvest_imported_without_a_topic_is_refused(gold):
    message, err = refused("import_conversations", "--campaign", "fairweb1", "--run", "chatgpt",
                           str(HARVESTS / "chatgpt-conversations.json"))
    assert "1 problem(s): nothing was imported" in message
    assert "2 harvested conversations without a topic: a harvest carries none, give the import one (--topic T)" in err
    assert not Conversation.objects.exists()
