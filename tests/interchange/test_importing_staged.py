"""An import is staged in short transactions and published in one (annotator.interchange.imports.staging):
nothing of it is visible before it is whole, nothing of a failed or crashed one ever is.

These run with real transactions (transaction=True): outside a test's transaction the importer
writes batch by batch, as in production."""

from __future__ import annotations

import json
import socket
from datetime import timedelta

import pytest
from django.http import Http404
from django.utils import timezone

from annotator import access
from annotator.interchange.imports import staging
from annotator.interchange.imports.conversations import import_files
from annotator.interchange.imports.staging import StagingArea, sweep_abandoned
from annotator.models import AnnotationEvent, Assignment, Campaign, Conversation, Entity, Nugget, Turn, TurnLabel
from tests.commands.helpers import row_counts
from tests.factories import make_campaign, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def conversation_line(index: int, topics: int = 5, broken: bool = False) -> dict:
    """bench_import.py's shape: 4 turns, 3 graded nuggets, an ORIGIN membership on every third."""
    movies = [1_000_000 + index * 3 + k for k in range(3)]
    system1 = " ".join(f"Film {m} ({1950 + m % 70}): https://www.imdb.com/title/tt{m}/ is good." for m in movies[:2])
    system2 = f"Also Film {movies[2]} ({1950 + movies[2] % 70}): https://www.imdb.com/title/tt{movies[2]}/ ."
    nuggets = []
    for k, (turn, start) in enumerate(((2, 0), (2, 6), (4, 1))):
        nugget = {"turn": turn, "start": start, "end": start + 3, "grade": ("L0", "L1", "L2")[(index + k) % 3]}
        if k == 0 and index % 3 == 0:
            vector = [0] * 8
            vector[index % 8] = 1
            nugget["memberships"] = {"ORIGIN": {"vector": vector, "evidence": "somewhere"}}
        nuggets.append(nugget)
    if broken:
        nuggets[0]["end"] = 10_000
    return {
        "topic": f"M{index % topics:03d}", "run": f"run-{index // topics:03d}",
        "turns": [
            {"role": "user", "text": f"Recommend movies for topic {index % topics} please"},
            {"role": "system", "text": system1, "label": "o"},
            {"role": "user", "text": "More?"},
            {"role": "system", "text": system2},
        ],
        "nuggets": nuggets,
    }


def jsonl(count: int, *, start: int = 0, broken_last: bool = False) -> bytes:
    return "".join(json.dumps(conversation_line(i, broken=broken_last and i == start + count - 1)) + "\n"
                   for i in range(start, start + count)).encode()


@pytest.fixture
def campaign(db):
    return make_campaign(organiser=make_user("olga"))


@pytest.fixture
def gold(db):
    return make_user("gold")


def nothing_staged_is_visible(campaign, gold, superuser) -> None:
    """What every reader sees of the campaign: only what was there before the import."""
    area = Campaign.objects.get(staging_for=campaign)
    staged = list(Conversation.objects.filter(topic__campaign=area).values_list("pk", flat=True))
    assert staged, "the import has staged conversations (else this proves nothing)"
    assert not Conversation.objects.filter(topic__campaign=campaign, pk__in=staged).exists()
    assert not Nugget.objects.filter(turn__conversation__topic__campaign=campaign, turn__conversation__in=staged).exists()
    assert not access.visible_conversations(superuser).filter(pk__in=staged).exists()
    assert not access.visible_conversations(gold).filter(pk__in=staged).exists()
    assert not access.assigned_conversations(gold).filter(pk__in=staged).exists()
    assert not access.organised_campaigns(superuser).filter(pk=area.pk).exists()
    assert not access.visible_campaigns(gold).filter(pk=area.pk).exists()
    assert not access.annotator_entities(gold).filter(topic__campaign=area).exists()
    assert Assignment.objects.filter(conversation_id__in=staged, annotator=gold).exists()  # staged with them
    with pytest.raises(Http404):
        access.assignment_for_annotator(gold, staged[0])
    with pytest.raises(Http404):
        access.turn_for_annotator(gold, Turn.objects.filter(conversation_id=staged[0]).first().pk)


def test_nothing_of_an_import_is_visible_until_it_is_published_then_all_of_it_is(campaign, gold, monkeypatch):
    superuser = make_user("root", is_superuser=True, is_staff=True)
    import_files(campaign, [("first.jsonl", jsonl(10))], annotator=gold)  # topics and runs exist: copies are staged
    before = Conversation.objects.filter(topic__campaign=campaign).count()
    publish, seen = StagingArea.publish, []

    def checked_publish(area, then=lambda: None):
        nothing_staged_is_visible(campaign, gold, superuser)
        assert Conversation.objects.filter(topic__campaign=campaign).count() == before
        seen.append(area.transactions)
        publish(area, then)

    monkeypatch.setattr(StagingArea, "publish", checked_publish)
    result = import_files(campaign, [("more.jsonl", jsonl(60, start=10))], annotator=gold)
    assert result.ok and result.conversations == 60
    assert seen and seen[0] > 5  # written in many short transactions, not one
    assert Conversation.objects.filter(topic__campaign=campaign).count() == 70
    assert Nugget.objects.filter(turn__conversation__topic__campaign=campaign).count() == 210
    assert access.assigned_conversations(gold).count() == 70
    assert not Campaign.objects.filter(staging_for__isnull=False).exists()
    assert Entity.objects.filter(topic__campaign=campaign, annotator=gold).count() == 210
    created = AnnotationEvent.objects.filter(kind="nugget", action="create", conversation__topic__campaign=campaign)
    assert created.count() == 210  # one event per change, on the published conversations
    event = created.order_by("pk").last()  # written as prepared rows: the same as the ORM writes
    assert event.imported and event.at is not None and event.after["end_word"] == event.after["start_word"] + 3
    assert event.topic.campaign == campaign and event.actor is None and event.annotator == gold


def test_a_broken_last_line_writes_nothing(campaign, gold):
    before = row_counts()
    result = import_files(campaign, [("broken.jsonl", jsonl(40, broken_last=True))], annotator=gold)
    assert not result.ok and result.errors[0].line == 40
    assert row_counts() == before


def test_a_failure_in_the_middle_of_the_write_leaves_nothing_and_no_staging_area(campaign, gold, monkeypatch):
    import_files(campaign, [("first.jsonl", jsonl(10))], annotator=gold)
    before = row_counts()
    write = StagingArea.write

    def failing_write(area, model, objects, **options):
        if model is Nugget:
            raise RuntimeError("the disk is full")
        write(area, model, objects, **options)

    monkeypatch.setattr(StagingArea, "write", failing_write)
    with pytest.raises(RuntimeError, match="disk is full"):
        import_files(campaign, [("more.jsonl", jsonl(30, start=10))], annotator=gold)
    assert row_counts() == before


def test_a_failure_while_publishing_leaves_nothing(campaign, gold, monkeypatch):
    import_files(campaign, [("first.jsonl", jsonl(10))], annotator=gold)
    before = row_counts()
    publish = StagingArea.publish

    def failing_publish(area, then=lambda: None):
        def then_fail():
            then()
            raise RuntimeError("the connection dropped")
        publish(area, then_fail)

    monkeypatch.setattr(StagingArea, "publish", failing_publish)
    with pytest.raises(RuntimeError, match="connection dropped"):
        import_files(campaign, [("more.jsonl", jsonl(30, start=10))], annotator=gold)
    assert row_counts() == before


def test_a_crashed_import_is_never_visible_and_the_next_import_sweeps_it_away(campaign, gold, monkeypatch):
    superuser = make_user("root", is_superuser=True, is_staff=True)
    import_files(campaign, [("first.jsonl", jsonl(10))], annotator=gold)
    before = row_counts()

    class Killed(BaseException):
        pass

    def killed(area, then=lambda: None):
        raise Killed  # the process dies before publishing: nothing runs after this

    monkeypatch.setattr(StagingArea, "publish", killed)
    monkeypatch.setattr(StagingArea, "discard", lambda area: None)
    with pytest.raises(Killed):
        import_files(campaign, [("more.jsonl", jsonl(30, start=10))], annotator=gold)
    monkeypatch.undo()
    nothing_staged_is_visible(campaign, gold, superuser)
    area = Campaign.objects.get(staging_for=campaign)

    assert sweep_abandoned() == 0  # its process (this one) still runs: it may still be importing
    area.staged_by = f"{socket.gethostname()} 999999999 1"  # a process that is gone
    area.save(update_fields=["staged_by"])
    result = import_files(campaign, [("again.jsonl", jsonl(5, start=40))], annotator=gold)  # sweeps first
    assert result.ok
    after = row_counts()
    assert after["Campaign"] == before["Campaign"] and after["Conversation"] == before["Conversation"] + 5
    assert after["Nugget"] == before["Nugget"] + 15 and after["Entity"] == before["Entity"] + 15
    assert after["AnnotationEvent"] == before["AnnotationEvent"] + 5 * 7 + 1  # 3 entities, 3 nuggets, 1 label each; 1 membership
    assert after["Topic"] == before["Topic"] and after["Run"] == before["Run"] + 1


def test_an_area_of_another_host_is_swept_only_after_a_long_silence(campaign):
    area = Campaign.objects.create(slug="~import-x", name="x", staging_for=campaign, staged_by="elsewhere 12 34")
    assert sweep_abandoned() == 0
    Campaign.objects.filter(pk=area.pk).update(updated_at=timezone.now() - staging.ABANDONED_AFTER - timedelta(seconds=1))
    assert sweep_abandoned() == 1
    assert not Campaign.objects.filter(pk=area.pk).exists()


def test_replacing_keeps_the_old_conversations_whole_until_the_new_ones_take_their_place(campaign, gold, monkeypatch):
    import_files(campaign, [("first.jsonl", jsonl(20))], annotator=gold)
    old = set(Conversation.objects.values_list("pk", flat=True))
    old_nuggets = Nugget.objects.count()
    old_events = AnnotationEvent.objects.filter(conversation__in=old).count()
    publish = StagingArea.publish

    def checked_publish(area, then=lambda: None):
        assert set(Conversation.objects.filter(topic__campaign=campaign).values_list("pk", flat=True)) == old
        assert Nugget.objects.filter(turn__conversation__topic__campaign=campaign).count() == old_nuggets
        assert AnnotationEvent.objects.filter(conversation__in=old).count() == old_events

        def then_look():
            then()
            # published, before the retired conversations are deleted: only the new ones in the campaign
            mine = set(Conversation.objects.filter(topic__campaign=campaign).values_list("pk", flat=True))
            assert len(mine) == 20 and not mine & old
            assert not Conversation.objects.filter(run__campaign=campaign, pk__in=old).exists()
            assert not Assignment.objects.filter(conversation__in=old).exists()
        publish(area, then_look)

    monkeypatch.setattr(StagingArea, "publish", checked_publish)
    result = import_files(campaign, [("first.jsonl", jsonl(20))], annotator=gold, replace=True)
    assert result.ok and result.replaced == 20
    new = set(Conversation.objects.filter(topic__campaign=campaign).values_list("pk", flat=True))
    assert len(new) == 20 and not new & old
    assert not Conversation.objects.filter(pk__in=old).exists()  # retired, then deleted
    assert Nugget.objects.count() == old_nuggets
    # the history moved to the replacements, with one "replaced" and the deletions recorded
    assert not AnnotationEvent.objects.filter(conversation__isnull=True, kind="nugget").exists()
    assert AnnotationEvent.objects.filter(kind="conversation", action="replace").count() == 20
    assert AnnotationEvent.objects.filter(kind="nugget", action="delete").count() == old_nuggets
    assert access.assigned_conversations(gold).count() == 20
    assert not Campaign.objects.filter(staging_for__isnull=False).exists()


def test_judgments_added_to_conversations_already_there_appear_all_at_once(campaign, gold, monkeypatch):
    import_files(campaign, [("first.jsonl", jsonl(20))], annotator=gold)
    second = make_user("second")
    publish = StagingArea.publish

    def checked_publish(area, then=lambda: None):
        assert not Nugget.objects.filter(annotator=second).exists()
        assert not TurnLabel.objects.filter(annotator=second).exists()
        assert not access.assigned_conversations(second).exists()
        assert not access.annotator_entities(second).exists()
        publish(area, then)

    monkeypatch.setattr(StagingArea, "publish", checked_publish)
    result = import_files(campaign, [("first.jsonl", jsonl(20))], annotator=second)
    assert result.ok and result.added_to == 20
    assert Nugget.objects.filter(annotator=second).count() == 60
    assert access.assigned_conversations(second).count() == 20
    assert access.annotator_entities(second).count() == 60


def written(campaign) -> list[tuple]:
    """What an import wrote into the campaign, by what a reader sees (no ids)."""
    conversations = {}
    for pk, topic, run, gold_name in Conversation.objects.filter(topic__campaign=campaign).values_list(
            "pk", "topic__code", "run__name", "gold_annotator__username"):
        conversations[pk] = [topic, run, gold_name, [], [], []]
    for conversation_id, position, role, text in Turn.objects.filter(conversation_id__in=conversations).values_list(
            "conversation_id", "position", "role", "text"):
        conversations[conversation_id][3].append((position, role, text))
    for conversation_id, position, start, end, grade, who in Nugget.objects.filter(
            turn__conversation_id__in=conversations).values_list(
            "turn__conversation_id", "turn__position", "start_word", "end_word", "entity__grade__label", "annotator__username"):
        conversations[conversation_id][4].append((position, start, end, grade, who))
    for conversation_id, who in Assignment.objects.filter(conversation_id__in=conversations).values_list(
            "conversation_id", "annotator__username"):
        conversations[conversation_id][5].append(who)
    return sorted((topic, run, gold_name, sorted(turns), sorted(nuggets), sorted(who))
                  for topic, run, gold_name, turns, nuggets, who in conversations.values())


def test_an_import_made_three_conversations_at_a_time_writes_what_one_made_all_at_once_writes(gold, monkeypatch):
    """The writer makes and stages conversations, turns, nuggets and labels JUDGMENTS_AT_ONCE
    conversations at a time (a large import's memory): with 3, a file of 20 over 10 already
    there, 5 of them replaced, ends as the same file written at once."""
    from annotator.interchange.imports import conversation_writing

    ends = []
    for slug, at_once in (("whole", 10_000), ("three", 3)):
        campaign = make_campaign(slug=slug, organiser=make_user(f"olga-{slug}"))
        import_files(campaign, [("first.jsonl", jsonl(10))], annotator=gold)
        monkeypatch.setattr(conversation_writing, "JUDGMENTS_AT_ONCE", at_once)
        result = import_files(campaign, [("more.jsonl", jsonl(20, start=5))], annotator=gold, replace=True)
        monkeypatch.undo()
        assert result.ok, result.errors
        assert (result.conversations, result.replaced) == (20, 5)
        ends.append(written(campaign))
    assert ends[0] == ends[1]
    assert len(ends[0]) == 25 and all(len(turns) == 4 and len(nuggets) == 3 for *_, turns, nuggets, _who in ends[0])
