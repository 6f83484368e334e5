"""annotator.interchange.imports.conversations.import_files: the importer behind the command and the console upload."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.interchange.formats import parse_paper, write_jsonl
from annotator.interchange.imports.conversations import import_files, run_from_filename
from annotator.models import Assignment, Campaign, Conversation, Entity, Membership, Nugget, Run, TurnLabel
from tests.commands.helpers import BARD_FIGURE, EXAMPLE, load_fairweb, row_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(db):
    load_fairweb()
    return Campaign.objects.get(slug="fairweb1")


def many_conversations(n: int, runs: str = "run") -> bytes:
    base = parse_paper(EXAMPLE.read_text(), "x").conversations[0]
    lines = []
    for i in range(n):
        base.topic, base.run = f"M{i % 7:03d}", f"{runs}{i // 7}"
        lines.append(write_jsonl([base]))
    return "".join(lines).encode()


def test_the_number_of_queries_does_not_grow_with_the_number_of_conversations(campaign):
    counts = []
    for n, tag in [(5, "a"), (60, "b")]:
        data = many_conversations(n, runs=f"{tag}run")
        with CaptureQueriesContext(connection) as queries:
            result = import_files(campaign, [(f"{tag}.jsonl", data)])
        assert result.ok, result.errors[:3]
        assert result.conversations == n and result.nuggets == 10 * n
        counts.append(len(queries.captured_queries))
    # 55 more conversations: 550 more nuggets, their events, labels and runs, in bulk batches
    # (SQLite takes 999 parameters a query: about 80 events a batch), never one per nugget; the
    # second import also stores the figures of the topics' conversations already there (publishing)
    assert counts[1] <= counts[0] + 30, counts
    assert counts[1] < 80


def test_a_file_without_annotations_imports_the_conversation_only(campaign):
    text = "\n".join(line for line in EXAMPLE.read_text().splitlines() if not line.startswith(("#L", "#R", "#O", "wc=")))
    text = text.replace("### S1 o", "### S1").replace("### S2 o", "### S2")
    result = import_files(campaign, [("M002-bing-trial1.txt", text.encode())])
    assert result.ok and result.nuggets == 0 and result.annotator is None
    conversation = Conversation.objects.get()
    assert conversation.gold_annotator is None and not Assignment.objects.exists()
    assert not get_user_model().objects.filter(username="gold").exists()


def test_a_new_run_takes_its_system_and_trial_from_its_name(campaign):
    result = import_files(campaign, [("M002-bing-trial2.txt", EXAMPLE.read_bytes())])
    assert result.ok, result.errors
    run = Run.objects.get(campaign=campaign, name="bing-trial2")
    assert (run.system, run.trial) == ("bing", 2)


def test_the_console_upload_gives_the_judgments_to_the_uploading_organiser(campaign):
    organiser = get_user_model().objects.create_user("org")
    result = import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], actor=organiser)
    assert result.ok and result.annotator == "org"
    assert Conversation.objects.get().gold_annotator == organiser
    assert set(Nugget.objects.values_list("annotator", flat=True)) == {organiser.pk}


def test_replacing_keeps_the_other_annotators_assignments_and_warns_that_their_judgments_went(campaign):
    from annotator.judgments import edits

    gold = get_user_model().objects.create_user("g")
    other = get_user_model().objects.create_user("other")
    import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold)
    conversation = Conversation.objects.get()
    Assignment.objects.create(conversation=conversation, annotator=other)
    edits.create_nugget(annotator=other, actor=other, turn=conversation.turns.get(position=2), start_word=0, end_word=1)
    result = import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold, replace=True)
    assert result.ok and result.replaced == 1
    assert [str(w) for w in result.warnings] == [
        "M002-bing-trial1.txt:1: M002 / bing-trial1: the judgments other annotators had made on the replaced conversation were deleted with it"
    ]
    assert set(Assignment.objects.values_list("annotator__username", flat=True)) == {"g", "other"}
    assert not Entity.objects.filter(annotator=other).exists()  # its entity lost its only nugget
    assert Entity.objects.filter(annotator=gold).count() == 10


def test_an_entity_judged_only_in_the_replaced_conversation_takes_the_new_judgment(campaign):
    gold = get_user_model().objects.create_user("g")
    import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold)
    changed = EXAMPLE.read_text().replace("#RATINGS: (0,0,0,1) #2M", "#RATINGS: (0,0,1,0) #900K")
    result = import_files(campaign, [("M002-bing-trial1.txt", changed.encode())], annotator=gold, replace=True)
    assert result.ok, result.errors
    interstellar = Entity.objects.get(key="https://imdb.com/title/tt0816692")
    assert interstellar.memberships.get(attribute_set__name="RATINGS").vector == [0, 0, 1, 0]
    assert Membership.objects.count() == 20


def test_a_later_file_may_add_a_grade_to_an_ungraded_entity_but_not_change_one(campaign):
    gold = get_user_model().objects.create_user("g")
    ungraded = EXAMPLE.read_text().replace("#L1\nwc= 46", "wc= 46")
    assert import_files(campaign, [("M002-bing-trial1.txt", ungraded.encode())], annotator=gold).ok
    assert Entity.objects.get(key="https://imdb.com/title/tt0816692").grade is None
    result = import_files(campaign, [("M002-bard-trial1.txt", BARD_FIGURE.read_bytes())], annotator=gold)
    assert result.ok and result.entities_updated == 1
    interstellar = Entity.objects.get(key="https://imdb.com/title/tt0816692")
    assert interstellar.grade.label == "L1" and interstellar.version == 2


def test_the_evidence_is_checked_against_the_campaigns_helper_as_a_warning(campaign):
    text = EXAMPLE.read_text().replace("#RATINGS: (0,0,1,0) #898K", "#RATINGS: (0,0,0,1) #898K")
    result = import_files(campaign, [("M002-bing-trial1.txt", text.encode())])
    assert result.ok
    assert [str(w) for w in result.warnings] == [
        "M002-bing-trial1.txt:15: RATINGS: the evidence '898K' gives (0,0,1,0) by the campaign's helper, the file says (0,0,0,1)"
    ]


def test_turn_labels_belong_to_the_annotator(campaign):
    gold = get_user_model().objects.create_user("g")
    import_files(campaign, [("M002-bard-trial1.txt", BARD_FIGURE.read_bytes())], annotator=gold)
    assert list(TurnLabel.objects.order_by("turn__position").values_list("label", flat=True)) == ["x", "o"]


def test_the_same_conversation_in_two_files_is_refused(campaign):
    before = row_counts()
    result = import_files(campaign, [("a/M002-bing-trial1.txt", EXAMPLE.read_bytes()), ("b/M002-bing-trial1.txt", EXAMPLE.read_bytes())])
    assert [str(e) for e in result.errors] == ["b/M002-bing-trial1.txt:1: conversation M002 / bing-trial1 is also in a/M002-bing-trial1.txt:1"]
    assert row_counts() == before


def test_a_run_named_in_the_file_must_agree_with_the_run_asked_for(campaign):
    text = EXAMPLE.read_text().replace("##### M002", "##### M002 run=bing-trial2")
    result = import_files(campaign, [("x.txt", text.encode())], run="bing-trial1")
    assert [str(e) for e in result.errors] == ["x.txt:1: the file names run 'bing-trial2' but the import is for run 'bing-trial1'"]
    assert import_files(campaign, [("x.txt", text.encode())]).ok
    assert Conversation.objects.get().run.name == "bing-trial2"


@pytest.mark.parametrize("name, topic, run", [
    ("M002-bing-trial1.txt", "M002", "bing-trial1"),
    ("exports/M002_bard.jsonl", "M002", "bard"),
    ("bing-trial1.txt", "M002", "bing-trial1"),
])
def test_the_run_of_a_file_without_one_comes_from_its_name(name, topic, run):
    assert run_from_filename(name, topic) == run


def test_an_import_records_every_judgment_it_writes_by_whoever_uploaded_it(campaign):
    from annotator.models import AnnotationEvent

    organiser = get_user_model().objects.create_user("org")
    result = import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], actor=organiser)
    events = AnnotationEvent.objects.all()
    assert set(events.values_list("actor__username", "annotator__username", "action", "imported")) == {
        ("org", "org", "create", True)
    }
    by_kind = {kind: events.filter(kind=kind).count() for kind in ("nugget", "entity", "membership", "label")}
    assert by_kind == {"nugget": result.nuggets, "entity": result.entities_created,
                       "membership": Membership.objects.count(), "label": result.labels}
    nugget = Nugget.objects.order_by("pk").first()
    event = events.get(kind="nugget", object_id=nugget.pk)
    assert event.conversation == nugget.turn.conversation
    assert event.after == {"turn": nugget.turn_id, "entity": nugget.entity_id,
                           "start_word": nugget.start_word, "end_word": nugget.end_word}


def test_undo_in_the_workspace_never_takes_back_imported_judgments(campaign):
    from annotator.judgments import edits

    gold = get_user_model().objects.create_user("g")
    import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold)
    conversation = Conversation.objects.get()
    assert edits.last_undoable(conversation, gold) is None
    label = TurnLabel.objects.filter(turn__conversation=conversation).first()
    edits.set_turn_label(label.turn, annotator=gold, actor=gold, label="x" if label.label != "x" else "o",
                               expected_version=label.version)
    assert edits.undo_last(conversation, gold, actor=gold) is not None  # the edit after the import
    assert edits.undo_last(conversation, gold, actor=gold) is None
    assert Nugget.objects.count() == 10


def test_replacing_records_what_went_with_the_old_conversation(campaign):
    from annotator.models import AnnotationEvent

    gold = get_user_model().objects.create_user("g")
    import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold)
    old_nuggets = set(Nugget.objects.values_list("pk", flat=True))
    import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold, replace=True)
    deleted = AnnotationEvent.objects.filter(kind="nugget", action="delete")
    assert set(deleted.values_list("object_id", flat=True)) == old_nuggets
    replacement = Conversation.objects.get()
    assert set(deleted.values_list("conversation", flat=True)) == {replacement.pk}  # the history moved on
    assert AnnotationEvent.objects.filter(kind="nugget", action="create", conversation=replacement).count() == 20
    (replaced,) = AnnotationEvent.objects.filter(kind="conversation", action="replace")
    assert (replaced.conversation, replaced.annotator, replaced.imported) == (replacement, gold, True)
    assert replaced.after == {"conversation": replacement.pk, "source": "M002-bing-trial1.txt"}


def test_replacing_keeps_the_annotators_own_edits_and_undo_stops_at_the_replacement(campaign):
    from annotator.judgments import edits
    from annotator.models import AnnotationEvent

    gold = get_user_model().objects.create_user("g")
    import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold)
    conversation = Conversation.objects.get()
    for nugget in Nugget.objects.select_related("entity")[:3]:
        edits.update_entity(nugget.entity, actor=gold, expected_version=nugget.entity.version,
                                  conversation=conversation, comment="checked")
        edits.delete_nugget(nugget, actor=gold, expected_version=nugget.version)
    own = set(AnnotationEvent.objects.filter(imported=False).values_list("pk", flat=True))
    assert len(own) == 6

    import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold, replace=True)
    replacement = Conversation.objects.get()
    assert set(AnnotationEvent.objects.filter(imported=False).values_list("pk", flat=True)) == own
    assert set(AnnotationEvent.objects.filter(pk__in=own).values_list("conversation", flat=True)) == {replacement.pk}
    # undo never replays a change made on the replaced conversation (its nuggets are gone)
    nuggets, comments = Nugget.objects.count(), sorted(Entity.objects.values_list("comment", flat=True))
    assert edits.last_undoable(replacement, gold) is None
    assert edits.undo_last(replacement, gold, actor=gold) is None
    assert (Nugget.objects.count(), sorted(Entity.objects.values_list("comment", flat=True))) == (nuggets, comments)


def test_a_refused_import_records_nothing(campaign):
    from annotator.models import AnnotationEvent

    broken = EXAMPLE.read_text().replace("#L1\nwc= 46", "#L7\nwc= 46")
    result = import_files(campaign, [("M002-bing-trial1.txt", broken.encode())])
    assert not result.ok and not AnnotationEvent.objects.exists()


WITHOUT_ORIGIN = EXAMPLE.read_text().replace("#ORIGIN: (0,1,0,0,0,0,0,0) #United States\nThe Terminator", "The Terminator")


def test_a_relevant_nugget_without_a_membership_is_imported_with_a_warning_naming_its_line(campaign):
    result = import_files(campaign, [("M002-bing-trial1.txt", WITHOUT_ORIGIN.encode())])
    assert result.ok and result.nuggets == 10
    assert [str(w) for w in result.warnings] == [
        "M002-bing-trial1.txt:8: entity https://imdb.com/title/tt0088763 is L2 but has no ORIGIN membership: "
        "the scores count it as uniform there"
    ]


def test_a_campaign_that_refuses_missing_memberships_refuses_the_whole_import(campaign):
    Campaign.objects.filter(pk=campaign.pk).update(missing_membership="refuse")
    campaign.refresh_from_db()
    before = row_counts()
    result = import_files(campaign, [("M002-bing-trial1.txt", WITHOUT_ORIGIN.encode())])
    assert [str(e) for e in result.errors] == [
        "M002-bing-trial1.txt:8: entity https://imdb.com/title/tt0088763 is L2 but has no ORIGIN membership "
        "(the campaign refuses it: missing_membership is refuse)"
    ]
    assert row_counts() == before


def test_a_membership_the_entity_already_has_counts_as_given(campaign):
    gold = get_user_model().objects.create_user("gold")
    assert import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold).ok
    Campaign.objects.filter(pk=campaign.pk).update(missing_membership="refuse")
    campaign.refresh_from_db()
    again = WITHOUT_ORIGIN.replace("##### M002", "##### M002 run=bing-trial2")
    result = import_files(campaign, [("M002-bing-trial2.txt", again.encode())], annotator=gold)
    assert result.ok and not result.warnings


def test_the_import_reports_its_progress_parsing_checking_then_writing(campaign):
    reports = []
    result = import_files(campaign, [("p.jsonl", many_conversations(450))], progress=lambda stage, done: reports.append((stage, done)))
    assert result.ok, result.errors[:3]
    assert [done for stage, done in reports if stage == "parsing"] == [200, 400, 450]  # as it reads, then the file
    assert [done for stage, done in reports if stage == "checking"] == [200, 400, 450]
    assert reports.index(("parsing", 450)) < reports.index(("checking", 200))
    assert reports[-2:] == [("writing", 0), ("written", 450)]


def test_a_refused_import_reports_no_writing(campaign):
    reports = []
    data = many_conversations(3) + b'{"topic": "M001"}\n'
    result = import_files(campaign, [("p.jsonl", data)], progress=lambda stage, done: reports.append(stage))
    assert not result.ok
    assert "parsing" in reports and "writing" not in reports and "written" not in reports


def test_errors_are_listed_in_file_order_line_by_line_whatever_stage_found_them(campaign):
    unknown_type = EXAMPLE.read_text().replace("M002", "Z002")  # found when checked against the campaign
    not_utf8 = b"\xff\xfe broken"  # found when read
    result = import_files(campaign, [("a.txt", unknown_type.encode()), ("b.txt", not_utf8)])
    assert not result.ok
    paths = [e.path for e in result.errors]
    assert paths == sorted(paths, key=["a.txt", "b.txt"].index) and {"a.txt", "b.txt"} <= set(paths)
    lines = [e.line for e in result.errors if e.path == "a.txt"]
    assert lines == sorted(lines)


@pytest.mark.parametrize("field", ["turn", "run", "entity name", "comment", "label", "membership key"])
def test_a_lone_surrogate_anywhere_in_a_jsonl_file_is_an_error_at_its_line_and_path(campaign, field):
    conversation = json.loads(many_conversations(1))
    nugget = conversation["nuggets"][0]
    if field == "turn":
        conversation["turns"][1]["text"] += " \ud800"
    elif field == "run":
        conversation["run"] = "bing\udfff"
    elif field == "entity name":
        nugget["entity"] = {"key": "name:x", "name": "X \ud800"}
    elif field == "comment":
        nugget["comment"] = "\ud800"
    elif field == "label":
        conversation["turns"][1]["label"] = "\ud800"
    else:
        nugget["memberships"]["\ud800"] = nugget["memberships"].pop(next(iter(nugget["memberships"])))
    data = b"\n" + json.dumps(conversation).encode()  # ensure_ascii: the surrogate as an escape
    result = import_files(campaign, [("bad.jsonl", data)])
    assert [(e.path, e.line) for e in result.errors] == [("bad.jsonl", 2)]
    assert "surrogate" in result.errors[0].message
    assert not Conversation.objects.exists()


def test_checking_a_conversations_nuggets_reads_each_turn_once_whatever_the_number_of_nuggets(campaign, monkeypatch):
    """Linear, not quadratic: 30,000 nuggets took more than 30 s when every nugget re-read its turn
    and was compared with every earlier span (bench/bench_nugget_import.py measures it)."""
    from annotator.interchange.formats.model import ParsedConversation

    reads = []
    original = ParsedConversation.words
    monkeypatch.setattr(ParsedConversation, "words", lambda self, turn: reads.append(turn) or original(self, turn))
    n = 3000
    line = {"topic": "M002", "run": "many-trial1",
            "turns": [{"role": "user", "text": "Name everything"}, {"role": "system", "text": " ".join(f"w{i}" for i in range(n))}],
            "nuggets": [{"turn": 2, "start": i, "end": i, "grade": "L0", "entity": {"key": f"name:w{i}"}} for i in range(n)]}
    line["nuggets"].append({"turn": 2, "start": 5, "end": 5, "grade": "L0", "entity": {"key": "name:w5"}})
    result = import_files(campaign, [("many.jsonl", json.dumps(line).encode())])
    assert [str(e) for e in result.errors] == [
        "many.jsonl:1: nuggets[3000]: this nugget overlaps the nugget at line 1 (nuggets of one annotator never overlap)"]
    assert len(reads) <= 2


def test_an_import_asks_which_conversations_name_an_entity_without_the_models_ordering_in_its_distinct(db):
    """The nuggets' DISTINCT over (entity, conversation) alone: the model's ordering would join
    topic and run into it (seconds a query on PostgreSQL once a campaign is large)."""
    import json as json_module
    import random

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotator.interchange.imports.conversations import import_files
    from bench.lib.generators import conversation_line
    from tests.factories import make_campaign

    campaign = make_campaign(slug="distinct")
    gold = get_user_model().objects.create_user("gold")
    rng = random.Random(3)
    lines = [conversation_line(i, 2, rng) for i in range(4)]
    for line in (lines[0], lines[2]):  # one entity of topic M000 named again by the second file
        line["nuggets"][0].update(entity={"key": "name:shared"}, grade="L0")
    lines = [json_module.dumps(line) for line in lines]
    assert import_files(campaign, [("a.jsonl", "\n".join(lines[:2]).encode())], annotator=gold).ok
    with CaptureQueriesContext(connection) as queries:
        assert import_files(campaign, [("b.jsonl", "\n".join(lines[2:]).encode())], annotator=gold).ok
    distinct = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT DISTINCT") and "annotator_nugget" in q["sql"]]
    assert distinct and not any("annotator_run" in sql or "annotator_topic" in sql for sql in distinct), distinct


def test_finished_judgments_are_imported_done_by_the_rule_of_the_done_button_and_unfinished_ones_open(campaign):
    base = parse_paper(EXAMPLE.read_text(), "x").conversations[0]
    finished = write_jsonl([base])
    base.topic, base.run = "M003", "bing-trial1"
    base.nuggets[0].grade = None  # one nugget left ungraded
    unfinished = write_jsonl([base])
    result = import_files(campaign, [("f.jsonl", (finished + unfinished).encode())])
    assert result.ok and result.done == 1 and "1 done (nothing the campaign needs is missing)" in result.summary()
    done = dict(Assignment.objects.values_list("conversation__topic__code", "done_at"))
    assert done["M002"] is not None and done["M003"] is None
